/* Linked into the fully static release binary only (OPMFU_STATIC, CMakeLists.txt).
 *
 * The one caller of dlopen in opmfu is SQLite's extension loader (sqlite3_load_extension), which
 * opmfu never calls; Debian's libsqlite3.a is built with it. In a static binary glibc's dlopen
 * would load shared objects built for the glibc of some other machine, so these definitions take
 * its place: they are linked as an object of the executable, before libc.a is searched, and any
 * attempt fails with a message instead of loading code (tests/package/static_glibc_test.sh checks
 * in the link map that SQLite's calls resolve here). The linker still prints its "Using 'dlopen'
 * in statically linked applications" warning: glibc's static start-up links its own loader code
 * for thread-local destructors, and with it the object that carries the warning.
 * docs/packaging.md ("Why fully static is safe") lists the rest of glibc's dynamic parts. */
#include <dlfcn.h>
#include <stddef.h>

static const char kNoDynamicLoading[] = "opmfu is a static binary and loads no shared objects";
static int dynamic_loading_attempted;

void* dlopen(const char* file, int mode) {
  (void)file;
  (void)mode;
  dynamic_loading_attempted = 1;
  return NULL;
}

void* dlsym(void* handle, const char* name) {
  (void)handle;
  (void)name;
  dynamic_loading_attempted = 1;
  return NULL;
}

int dlclose(void* handle) {
  (void)handle;
  return 0;
}

char* dlerror(void) {
  if (!dynamic_loading_attempted) return NULL;
  dynamic_loading_attempted = 0;
  return (char*)kNoDynamicLoading;
}
