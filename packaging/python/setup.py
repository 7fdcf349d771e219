"""Only here to tag the wheel: it carries a native binary, so it is py3-none-<platform>, where
<platform> is what scripts/wheel computed from the binary (OPMFU_WHEEL_PLATFORM)."""

import os

from setuptools import setup
from wheel.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", os.environ["OPMFU_WHEEL_PLATFORM"]


setup(cmdclass={"bdist_wheel": PlatformWheel})
