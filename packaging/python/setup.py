"""Only here for two things setuptools does not do for a native binary: tag the wheel
py3-none-<platform>, where <platform> is what scripts/wheel computed from the binary
(OPMFU_WHEEL_PLATFORM), and copy the binary into the wheel's scripts as it is (setuptools would
read it as a Python script to rewrite its #! line)."""

import os
import shutil

from setuptools import setup
from distutils.command.build_scripts import build_scripts  # setuptools 66 has no own build_scripts
from wheel.bdist_wheel import bdist_wheel


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", os.environ["OPMFU_WHEEL_PLATFORM"]


class CopyBinary(build_scripts):
    def copy_scripts(self):
        self.mkpath(self.build_dir)
        copied = []
        for script in self.scripts:
            target = os.path.join(self.build_dir, os.path.basename(script))
            shutil.copyfile(script, target)
            os.chmod(target, 0o755)
            copied.append(target)
        return copied, copied


setup(cmdclass={"bdist_wheel": PlatformWheel, "build_scripts": CopyBinary})
