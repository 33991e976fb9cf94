/* libmpitaskmap_pmpi_core: MPI_Cart_create and MPI_Dist_graph_create_adjacent with reorder = 1
 * answered by mpitaskmap, for C and Fortran codes that are not changed.
 *
 * The preloaded libmpitaskmap_pmpi.so (mpitaskmap_pmpi_shim.c, which needs no MPI) defines
 * MPI_Cart_create and MPI_Dist_graph_create_adjacent (and their Fortran entry points, which
 * Open MPI's own bindings route to PMPI_, past a C interposer) and, in a process of the MPI
 * this core is built with, loads this core and calls its mpitaskmap_* entry points below.
 * With reorder = 1 the core asks the Python library for the order, in-process: it starts an
 * embedded Python interpreter if the process has none, imports mpitaskmap.runtime.pmpi and
 * calls cart_order_hook / dist_graph_order_hook (mpitaskmap.cart_order / dist_graph_order on
 * the communicator, converted with mpi4py's MPI.Comm.f2py), then builds the communicator
 * with MPI's own call in that order:
 *
 *     PMPI_Comm_split(comm, 0, new_rank_of[rank], &tmp);
 *     PMPI_Cart_create(tmp, ndims, dims, periods, 0, &cart);   (reorder = 0)
 *
 * and, for a distributed graph, each vertex's adjacency sent to the process now playing
 * it (one PMPI_Sendrecv of the sizes and one of the lists on tmp) before
 * PMPI_Dist_graph_create_adjacent(tmp, ..., reorder = 0, ...).  Every other call, and
 * reorder = 0, goes to MPI unchanged.
 *
 * Never hang, never abort.  MPITASKMAP_DISABLE=1 (on every rank), a Python that cannot be
 * loaded or started, an import that fails, or any exception in Python (on any rank) gives
 * MPI's own call with the caller's arguments, unchanged.  Each rank first says whether its
 * Python is ready, and again whether its call succeeded: one PMPI_Allreduce (MPI_MINLOC
 * over (ok, rank)) each time, so every rank takes the same way; after a failure the first
 * failing rank's reason is broadcast and rank 0 of comm prints it on one stderr line.
 * Python's own errors inside cart_order are agreed by mpitaskmap before they are raised.
 * Arguments MPI must judge go to MPI's own call silently, and MPI reports the error as it
 * would without this library: an invalid grid at once (the same on every rank), a neighbour
 * that is no rank, a negative degree ... after the agreement (adjacency differs by rank).
 *
 * The application's error handling is left as it was.  Python runs with mpi4py.rc.errors =
 * "default" when this core imports mpi4py.MPI (mpi4py's own "exception" sets
 * MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF), and the error handlers of
 * MPI_COMM_WORLD, MPI_COMM_SELF and the caller's communicator are taken before any Python
 * runs and put back before the communicator is made, which thus inherits the caller's handler
 * as MPI's own call's does (whatever Python did: a Python application's own mpi4py, an
 * MPI4PY_RC_ERRORS in the environment, which mpi4py reads before rc, a hook).  Where the call fails, the Fortran handle is left unwritten, as
 * MPI's Fortran bindings leave it.
 *
 * Environment:
 *   MPITASKMAP_DISABLE=1       MPI's own calls (no Python loaded); set on some ranks only, MPI's
 *                              own calls and one line naming the ranks
 *   MPITASKMAP_LIBPYTHON=PATH  the libpython to load when the process runs no Python
 *                              (default: the one of the Python that built this library)
 *   MPITASKMAP_PYTHON=PATH     the python executable whose environment (venv) the embedded
 *                              interpreter takes (default: the building one; its
 *                              site-packages are added only for the default)
 *   MPITASKMAP_PROVIDER, MPITASKMAP_COORDS_FILE, MPITASKMAP_LOG: as mpitaskmap.remap
 *   reads them; PYTHONPATH and PYTHONHOME as Python reads them.
 *
 * The core also holds the traffic recorder (MPITASKMAP_RECORD), compiled from
 * mpitaskmap_pmpi_record.c into the same library; it needs no Python.
 *
 * Built by mpitaskmap.runtime.pmpi.pmpi_library (`mpitaskmap --pmpi-lib`) with the mpicc
 * of the MPI the application uses, and a generated mpitaskmap_pmpi_config.h that defines
 * CFG_LIBPYTHON, CFG_PY_EXECUTABLE and CFG_PY_SITE_DIRS (':'-separated), into
 * libmpitaskmap_pmpi_core.so beside the shim.
 */
#define _GNU_SOURCE
#define PY_SSIZE_T_CLEAN
#include <Python.h> /* types only (PyObject, PyConfig, PyStatus): every function is found with dlsym */
#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitaskmap_pmpi_config.h"

#define MSG_LEN 1024 /* one reason, broadcast from the first failing rank */

/* -- Python, loaded at run time ------------------------------------------------------------
 * Functions found with dlsym: in the process when it already runs Python, else in
 * MPITASKMAP_LIBPYTHON (or the build's libpython) opened RTLD_GLOBAL so that extension modules
 * (numpy, mpi4py, mpitaskmap's kernels) find them.  No data symbol (such as Py_None) is used, so
 * nothing is needed from Python until the first reordering call.  The interpreter is started
 * with Py_InitializeFromConfig, which returns its failure (Py_InitializeEx would abort the
 * process); PyConfig's layout is the building Python's, so a libpython of another version is
 * refused. */
static struct {
  int (*IsInitialized)(void);
  const char* (*GetVersion)(void);
  void (*ConfigInitPythonConfig)(PyConfig*);
  PyStatus (*ConfigSetBytesString)(PyConfig*, wchar_t**, const char*);
  PyStatus (*InitializeFromConfig)(const PyConfig*);
  void (*ConfigClear)(PyConfig*);
  int (*StatusException)(PyStatus);
  void* (*EvalSaveThread)(void);
  int (*GILStateEnsure)(void);
  void (*GILStateRelease)(int);
  PyObject* (*ImportModule)(const char*);
  PyObject* (*GetModuleDict)(void);
  PyObject* (*DictGetItemString)(PyObject*, const char*);
  PyObject* (*GetAttrString)(PyObject*, const char*);
  int (*SetAttrString)(PyObject*, const char*, PyObject*);
  PyObject* (*CallObject)(PyObject*, PyObject*);
  PyObject* (*TuplePack)(Py_ssize_t, ...);
  PyObject* (*BytesFromStringAndSize)(const char*, Py_ssize_t);
  int (*BytesAsStringAndSize)(PyObject*, char**, Py_ssize_t*);
  PyObject* (*LongFromLong)(long);
  PyObject* (*BoolFromLong)(long);
  PyObject* (*UnicodeFromString)(const char*);
  PyObject* (*UnicodeAsUTF8String)(PyObject*);
  PyObject* (*ObjectStr)(PyObject*);
  PyObject* (*ErrOccurred)(void);
  void (*ErrFetch)(PyObject**, PyObject**, PyObject**);
  void (*ErrNormalizeException)(PyObject**, PyObject**, PyObject**);
  void (*DecRef)(PyObject*);
} py;

/* State of this process's Python: 0 not tried, 1 ready (hooks below set), -1 failed (reason). */
static int py_state = 0;
static char py_reason[MSG_LEN];
static PyObject *cart_hook, *dist_graph_hook;
/* An MPI call made by Python inside a hook goes to MPI as is, and the recorder
 * (mpitaskmap_pmpi_record.c) does not count it: it is the mapping's traffic, not the application's. */
__attribute__((visibility("hidden"))) __thread int mpitaskmap_in_hook;
#define in_hook mpitaskmap_in_hook
/* The recorder's count of threads inside a hook (mpitaskmap_pmpi_record.c: it reads it first, and the
 * thread-local flag only when it is nonzero, so that a send pays for no thread-local access in the
 * common case; in this dlopen'ed library each one is a call to __tls_get_addr). */
__attribute__((visibility("hidden"))) void mpitaskmap_record_hook_running(int delta);

/* Enter and leave a hook: the thread's flag, and the count of threads in one (the flag set first, so
 * that whenever this thread sees the count it also sees its own flag). */
static void hook_enter(void)
{
  in_hook = 1;
  mpitaskmap_record_hook_running(1);
}

static void hook_leave(void)
{
  mpitaskmap_record_hook_running(-1);
  in_hook = 0;
}

static void set_reason(char* out, const char* fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(out, MSG_LEN, fmt, ap);
  va_end(ap);
  if (n >= MSG_LEN) /* said, not silently cut */
    strcpy(out + MSG_LEN - 16, " [... cut]");
  for (char* c = out; *c; c++) /* one line on stderr */
    if (*c == '\n' || *c == '\r')
      *c = ' ';
}

static void drop(PyObject* o)
{
  if (o)
    py.DecRef(o);
}

/* The pending Python exception as "Type: message" in out, cleared. */
static void take_exception(char* out, const char* doing)
{
  PyObject *type = NULL, *value = NULL, *tb = NULL;
  py.ErrFetch(&type, &value, &tb);
  if (!type) {
    set_reason(out, "%s: failed without a Python exception", doing);
    return;
  }
  py.ErrNormalizeException(&type, &value, &tb);
  const char *tname = "exception", *text = "";
  PyObject* name = py.GetAttrString(type, "__name__");
  PyObject* name_b = name ? py.UnicodeAsUTF8String(name) : NULL;
  PyObject* str = value ? py.ObjectStr(value) : NULL;
  PyObject* str_b = str ? py.UnicodeAsUTF8String(str) : NULL;
  char* s;
  Py_ssize_t n;
  if (name_b && py.BytesAsStringAndSize(name_b, &s, &n) == 0)
    tname = s;
  if (str_b && py.BytesAsStringAndSize(str_b, &s, &n) == 0)
    text = s;
  set_reason(out, "%s: %s: %s", doing, tname, text);
  if (py.ErrOccurred()) { /* formatting itself failed: drop that error too */
    PyObject *t2, *v2, *b2;
    py.ErrFetch(&t2, &v2, &b2);
    drop(t2), drop(v2), drop(b2);
  }
  drop(str_b), drop(str), drop(name_b), drop(name), drop(type), drop(value), drop(tb);
}

static int find_symbols(void* lib, char* why)
{
#define SYM(field, name)                                                                                              \
  do {                                                                                                                \
    *(void**)&py.field = dlsym(lib, name);                                                                            \
    if (!py.field) {                                                                                                  \
      set_reason(why, "the Python library has no %s", name);                                                          \
      return 0;                                                                                                       \
    }                                                                                                                 \
  } while (0)
  SYM(IsInitialized, "Py_IsInitialized");
  SYM(GetVersion, "Py_GetVersion");
  SYM(ConfigInitPythonConfig, "PyConfig_InitPythonConfig");
  SYM(ConfigSetBytesString, "PyConfig_SetBytesString");
  SYM(InitializeFromConfig, "Py_InitializeFromConfig");
  SYM(ConfigClear, "PyConfig_Clear");
  SYM(StatusException, "PyStatus_Exception");
  SYM(EvalSaveThread, "PyEval_SaveThread");
  SYM(GILStateEnsure, "PyGILState_Ensure");
  SYM(GILStateRelease, "PyGILState_Release");
  SYM(ImportModule, "PyImport_ImportModule");
  SYM(GetModuleDict, "PyImport_GetModuleDict");
  SYM(DictGetItemString, "PyDict_GetItemString");
  SYM(GetAttrString, "PyObject_GetAttrString");
  SYM(SetAttrString, "PyObject_SetAttrString");
  SYM(CallObject, "PyObject_CallObject");
  SYM(TuplePack, "PyTuple_Pack");
  SYM(BytesFromStringAndSize, "PyBytes_FromStringAndSize");
  SYM(BytesAsStringAndSize, "PyBytes_AsStringAndSize");
  SYM(LongFromLong, "PyLong_FromLong");
  SYM(BoolFromLong, "PyBool_FromLong");
  SYM(UnicodeFromString, "PyUnicode_FromString");
  SYM(UnicodeAsUTF8String, "PyUnicode_AsUTF8String");
  SYM(ObjectStr, "PyObject_Str");
  SYM(ErrOccurred, "PyErr_Occurred");
  SYM(ErrFetch, "PyErr_Fetch");
  SYM(ErrNormalizeException, "PyErr_NormalizeException");
  SYM(DecRef, "Py_DecRef");
#undef SYM
  return 1;
}

/* Call f(arg) for one string argument; 0 and the reason on failure. */
static int call1(PyObject* f, const char* arg, char* why, const char* doing)
{
  PyObject* s = py.UnicodeFromString(arg);
  PyObject* args = s ? py.TuplePack(1, s) : NULL;
  PyObject* r = args ? py.CallObject(f, args) : NULL;
  drop(args), drop(s);
  if (!r) {
    take_exception(why, doing);
    return 0;
  }
  drop(r);
  return 1;
}

/* With the GIL held: the build's site-packages, mpi4py told not to start or end MPI, the hooks. */
static int import_hooks(int started_here, char* why)
{
  if (started_here && !getenv("MPITASKMAP_PYTHON") && CFG_PY_SITE_DIRS[0]) {
    PyObject* site = py.ImportModule("site");
    PyObject* add = site ? py.GetAttrString(site, "addsitedir") : NULL;
    if (!add) {
      take_exception(why, "import site");
      drop(site);
      return 0;
    }
    char dirs[] = CFG_PY_SITE_DIRS;
    int ok = 1;
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); ok && d; d = strtok_r(NULL, ":", &save))
      ok = call1(add, d, why, "site.addsitedir");
    drop(add), drop(site);
    if (!ok)
      return 0;
  }
  /* MPI runs already: mpi4py must neither initialise nor finalise it (only if MPI is not imported yet). */
  PyObject* modules = py.GetModuleDict(); /* borrowed */
  if (!py.DictGetItemString(modules, "mpi4py.MPI")) {
    PyObject* mpi4py = py.ImportModule("mpi4py");
    PyObject* rc = mpi4py ? py.GetAttrString(mpi4py, "rc") : NULL;
    PyObject* no = py.BoolFromLong(0);
    /* errors = "default": mpi4py's own "exception" would set MPI_ERRORS_RETURN on MPI_COMM_WORLD
     * and MPI_COMM_SELF at import, changing the application's error handling */
    PyObject* errors = py.UnicodeFromString("default");
    int ok = rc && no && errors && py.SetAttrString(rc, "initialize", no) == 0 &&
             py.SetAttrString(rc, "finalize", no) == 0 && py.SetAttrString(rc, "errors", errors) == 0;
    drop(errors), drop(no), drop(rc), drop(mpi4py);
    if (!ok) {
      take_exception(why, "import mpi4py");
      return 0;
    }
  }
  PyObject* mod = py.ImportModule("mpitaskmap.runtime.pmpi");
  if (!mod) {
    take_exception(why, "import mpitaskmap.runtime.pmpi");
    return 0;
  }
  cart_hook = py.GetAttrString(mod, "cart_order_hook");
  dist_graph_hook = cart_hook ? py.GetAttrString(mod, "dist_graph_order_hook") : NULL;
  drop(mod);
  if (!dist_graph_hook) {
    take_exception(why, "mpitaskmap.runtime.pmpi");
    return 0;
  }
  return 1;
}

/* Start the interpreter: the building Python's version only (PyConfig's layout), no signal
 * handlers (the application keeps its own), the program name of MPITASKMAP_PYTHON or of the
 * building python (its virtualenv's pyvenv.cfg and standard library).  1, or 0 and why. */
static int start_python(char* why)
{
  int major = 0, minor = 0;
  if (sscanf(py.GetVersion(), "%d.%d", &major, &minor) != 2 || major != PY_MAJOR_VERSION ||
      minor != PY_MINOR_VERSION) {
    set_reason(why, "the Python library is version %.20s but this library was built for Python %d.%d: set "
               "MPITASKMAP_LIBPYTHON to a libpython%d.%d, or build the library with Python %d.%d", py.GetVersion(),
               PY_MAJOR_VERSION, PY_MINOR_VERSION, PY_MAJOR_VERSION, PY_MINOR_VERSION, major, minor);
    return 0;
  }
  const char* exe = getenv("MPITASKMAP_PYTHON");
  if (exe && *exe && access(exe, X_OK) != 0) { /* else Python starts without its venv: "No module named mpi4py" */
    set_reason(why, "MPITASKMAP_PYTHON=%s: %s; it must name the python executable whose environment (virtualenv) "
               "this library uses", exe, strerror(errno));
    return 0;
  }
  if (!exe || !*exe)
    exe = CFG_PY_EXECUTABLE;
  PyConfig config;
  py.ConfigInitPythonConfig(&config);
  config.install_signal_handlers = 0;
  config.parse_argv = 0;
  PyStatus status = py.ConfigSetBytesString(&config, &config.program_name, exe);
  if (!py.StatusException(status))
    status = py.InitializeFromConfig(&config);
  py.ConfigClear(&config);
  if (py.StatusException(status)) {
    set_reason(why, "Python did not start (program name %s): %s%s%s", exe, status.func ? status.func : "",
               status.func ? ": " : "", status.err_msg ? status.err_msg : "no message");
    return 0;
  }
  return 1;
}

/* Make this process's Python ready once: 1, or 0 with py_reason set (and kept: no retry). */
static int python_ready(void)
{
  if (py_state)
    return py_state > 0;
  py_state = -1;
  void* lib = RTLD_DEFAULT;
  int (*running)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "Py_IsInitialized");
  int started_here = !(running && running());
  if (started_here) {
    const char* path = getenv("MPITASKMAP_LIBPYTHON");
    if (!path || !*path)
      path = CFG_LIBPYTHON;
    if (!*path) {
      set_reason(py_reason, "no libpython was found when this library was built; set MPITASKMAP_LIBPYTHON");
      return 0;
    }
    lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      set_reason(py_reason, "cannot load Python (MPITASKMAP_LIBPYTHON or the build's): %s", dlerror());
      return 0;
    }
  }
  if (!find_symbols(lib, py_reason))
    return 0;
  if (started_here && !start_python(py_reason))
    return 0;
  if (started_here) {
    py.EvalSaveThread(); /* release the GIL: every call below takes it with PyGILState_Ensure */
  }
  int g = py.GILStateEnsure();
  int ok = import_hooks(started_here, py_reason);
  py.GILStateRelease(g);
  if (ok)
    py_state = 1;
  return ok;
}

/* -- agreement ------------------------------------------------------------------------------- */

/* Every rank gives ok: 1 (go on), 0 (not, with why) or -1 (go to MPI silently: MPITASKMAP_DISABLE
 * on every rank, or arguments MPI must judge).  One PMPI_Allreduce (MPI_MINLOC over (ok, rank)); returns 1 when all are ok.
 * After a failure the first failing rank's reason is broadcast and rank 0 prints it. */
static int agree(MPI_Comm comm, int ok, const char* why, const char* call)
{
  int rank;
  PMPI_Comm_rank(comm, &rank);
  struct {
    int ok, rank;
  } mine = {ok, rank}, all;
  PMPI_Allreduce(&mine, &all, 1, MPI_2INT, MPI_MINLOC, comm);
  if (all.ok != 0)
    return all.ok > 0;
  char text[MSG_LEN];
  if (rank == all.rank)
    memcpy(text, why, MSG_LEN);
  PMPI_Bcast(text, MSG_LEN, MPI_CHAR, all.rank, comm);
  if (rank == 0) {
    text[MSG_LEN - 1] = '\0';
    fprintf(stderr, "mpitaskmap: %s(reorder=1): MPI's own call, not reordered by mpitaskmap: rank %d: %s\n", call,
            all.rank, text);
    fflush(stderr);
  }
  return 0;
}

static int disabled(void)
{
  const char* v = getenv("MPITASKMAP_DISABLE");
  if (!v)
    return 0;
  return !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on");
}

/* Text of the differing MPITASKMAP_DISABLE on every rank ("set on ranks 0,2-3, unset on rank 1"),
 * into why: one PMPI_Allgather of the flags, only on this path. */
static void append_ranks(char* out, size_t room, const int* flag, int size, int want)
{
  size_t n = strlen(out);
  const char* sep = "";
  for (int r = 0; r < size && n + 32 < room; r++) {
    if (flag[r] != want || (r > 0 && flag[r - 1] == want))
      continue;
    int last = r;
    while (last + 1 < size && flag[last + 1] == want)
      last++;
    n += (size_t)(last > r ? snprintf(out + n, room - n, "%s%d-%d", sep, r, last)
                           : snprintf(out + n, room - n, "%s%d", sep, r));
    sep = ",";
  }
}

static void disable_differs(MPI_Comm comm, char* why)
{
  int size, off = disabled();
  PMPI_Comm_size(comm, &size);
  int* flag = malloc(sizeof(int) * (size_t)size);
  PMPI_Allgather(&off, 1, MPI_INT, flag, 1, MPI_INT, comm);
  int n_on = 0;
  for (int r = 0; r < size; r++)
    n_on += flag[r] != 0;
  char text[MSG_LEN] = "MPITASKMAP_DISABLE differs between ranks: set on ";
  strcat(text, n_on > 1 ? "ranks " : "rank ");
  append_ranks(text, MSG_LEN - 64, flag, size, 1);
  strcat(text, size - n_on > 1 ? ", unset on ranks " : ", unset on rank ");
  append_ranks(text, MSG_LEN - 64, flag, size, 0);
  if (strlen(text) >= MSG_LEN - 96)
    strcat(text, ",...");
  strcat(text, " (a job-level switch: the same on every rank)");
  set_reason(why, "%s", text);
  free(flag);
}

/* Before Python: 1 when every rank may go on.  A rank whose arguments MPI must judge (leave: an
 * erroneous call, or nothing to reorder) turns the call to MPI's own silently, as does
 * MPITASKMAP_DISABLE on rank 0 (no Python loaded): MPI then reports any error itself, as it would
 * without this library.  Otherwise any rank whose Python is not ready turns it with one line. */
static int agree_ready(MPI_Comm comm, const char* call, int leave)
{
  int rank;
  PMPI_Comm_rank(comm, &rank);
  int off = disabled(), ok = 1;
  char why[MSG_LEN] = "";
  /* MPITASKMAP_DISABLE is a job-level switch: set on every rank it turns the call to MPI's own
   * silently; set on some ranks only, every rank takes MPI's own call and one line names them. */
  int span[2] = {off, !off}, any[2];
  PMPI_Allreduce(span, any, 2, MPI_INT, MPI_MAX, comm);
  int all_off = any[0] && !any[1], some_off = any[0] && any[1];
  if (some_off) /* collective: on every rank, whatever its own arguments */
    disable_differs(comm, why);
  if (leave || all_off) {
    ok = -1;
  } else if (some_off) {
    ok = 0;
  } else if (!python_ready()) {
    ok = 0;
    memcpy(why, py_reason, MSG_LEN);
  }
  return agree(comm, ok, why, call);
}

/* The error handlers of MPI_COMM_WORLD, MPI_COMM_SELF and the caller's communicator, taken before
 * any Python runs in a call and put back before the communicator is made: whatever Python does
 * (an application's own mpi4py with rc.errors = "exception", a hook) the application keeps its
 * error handling, and the new communicator inherits the caller's handler as MPI's own call's does. */
typedef struct {
  MPI_Errhandler world, self, comm;
} errhandlers;

static void save_errhandlers(MPI_Comm comm, errhandlers* e)
{
  PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &e->world);
  PMPI_Comm_get_errhandler(MPI_COMM_SELF, &e->self);
  PMPI_Comm_get_errhandler(comm, &e->comm);
}

static void restore_errhandlers(MPI_Comm comm, errhandlers* e)
{
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, e->world);
  PMPI_Comm_set_errhandler(MPI_COMM_SELF, e->self);
  PMPI_Comm_set_errhandler(comm, e->comm);
  PMPI_Errhandler_free(&e->world);
  PMPI_Errhandler_free(&e->self);
  PMPI_Errhandler_free(&e->comm);
}

/* Call hook(args) with the GIL; the order (size ints) in order, or 0 and why. */
static int call_hook(PyObject* hook, PyObject* args_or_null, int size, int* order, char* why, const char* call)
{
  int ok = 0;
  PyObject* r = args_or_null ? py.CallObject(hook, args_or_null) : NULL;
  char* buf;
  Py_ssize_t n;
  if (!r) {
    take_exception(why, call);
  } else if (py.BytesAsStringAndSize(r, &buf, &n) != 0) {
    take_exception(why, call);
  } else if (n != (Py_ssize_t)size * (Py_ssize_t)sizeof(int)) {
    set_reason(why, "%s: the hook returned %ld bytes, not one int for each of the %d ranks", call, (long)n, size);
  } else {
    memcpy(order, buf, (size_t)n);
    ok = 1;
    char* seen = calloc((size_t)size, 1);
    for (int i = 0; ok && i < size; i++) {
      if (order[i] < 0 || order[i] >= size || seen[order[i]]) {
        set_reason(why, "%s: the order is not a permutation of 0..%d (new_rank_of[%d] = %d)", call, size - 1, i,
                   order[i]);
        ok = 0;
      } else {
        seen[order[i]] = 1;
      }
    }
    free(seen);
  }
  drop(r);
  return ok;
}

static PyObject* int_bytes(const int* v, int n)
{
  static const int none = 0;
  return py.BytesFromStringAndSize((const char*)(n ? v : &none), (Py_ssize_t)n * (Py_ssize_t)sizeof(int));
}

static int is_identity(const int* order, int size)
{
  for (int i = 0; i < size; i++)
    if (order[i] != i)
      return 0;
  return 1;
}

/* -- MPI_Cart_create ------------------------------------------------------------------------- */

static int cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                       MPI_Comm* cart)
{
  int inter = 0;
  if (!reorder || in_hook || comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, cart);
  static const char call[] = "MPI_Cart_create";
  char why[MSG_LEN] = "";
  int rank, size;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  /* Left to MPI at once: no grid (ndims 0), or an erroneous one.  MPI requires the same grid on
   * every rank, so every rank decides alike without agreeing first, and MPI reports the error at
   * the moment it would without this library (an agreement would synchronise the ranks' aborts). */
  int leave = ndims < 1 || !dims || !periods;
  long cells = 1;
  for (int i = 0; !leave && i < ndims; i++) {
    leave = dims[i] < 1 || dims[i] > size;
    cells *= dims[i];
    leave |= cells > size;
  }
  if (leave)
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, cart);
  hook_enter();
  errhandlers saved;
  save_errhandlers(comm, &saved);
  if (!agree_ready(comm, call, 0)) {
    restore_errhandlers(comm, &saved);
    hook_leave();
    return PMPI_Cart_create(comm, ndims, dims, periods, reorder, cart);
  }
  int* order = malloc(sizeof(int) * (size_t)size);
  int g = py.GILStateEnsure();
  PyObject* fcomm = py.LongFromLong((long)PMPI_Comm_c2f(comm));
  PyObject* d = int_bytes(dims, ndims);
  PyObject* p = int_bytes(periods, ndims);
  PyObject* args = fcomm && d && p ? py.TuplePack(3, fcomm, d, p) : NULL;
  int ok = call_hook(cart_hook, args, size, order, why, "mpitaskmap.cart_order");
  drop(args), drop(p), drop(d), drop(fcomm);
  py.GILStateRelease(g);
  restore_errhandlers(comm, &saved);
  int rc;
  if (!agree(comm, ok, why, call)) {
    rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, cart);
  } else if (is_identity(order, size)) {
    rc = PMPI_Cart_create(comm, ndims, dims, periods, 0, cart);
  } else {
    MPI_Comm tmp;
    rc = PMPI_Comm_split(comm, 0, order[rank], &tmp);
    if (rc == MPI_SUCCESS) {
      rc = PMPI_Cart_create(tmp, ndims, dims, periods, 0, cart);
      PMPI_Comm_free(&tmp);
    }
  }
  free(order);
  hook_leave();
  return rc;
}

/* -- the core's entry points, called by the shim (mpitaskmap_pmpi_shim.c) ----------------------- */

#define CORE_API __attribute__((visibility("default")))

CORE_API int mpitaskmap_cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                                    MPI_Comm* cart)
{
  return cart_create(comm, ndims, dims, periods, reorder, cart);
}

/* -- MPI_Dist_graph_create_adjacent ---------------------------------------------------------- */

/* One vertex's adjacency, packed: indegree, outdegree, sources, sourceweights, destinations,
 * destweights (the weights only when weighted). */
static int* pack_adjacency(int indeg, const int src[], const int sw[], int outdeg, const int dst[], const int dw[],
                           int weighted, int* len)
{
  *len = 2 + (indeg + outdeg) * (weighted ? 2 : 1);
  int* buf = malloc(sizeof(int) * (size_t)*len);
  int k = 0;
  buf[k++] = indeg;
  buf[k++] = outdeg;
  memcpy(buf + k, src, sizeof(int) * (size_t)indeg), k += indeg;
  if (weighted)
    memcpy(buf + k, sw, sizeof(int) * (size_t)indeg), k += indeg;
  memcpy(buf + k, dst, sizeof(int) * (size_t)outdeg), k += outdeg;
  if (weighted)
    memcpy(buf + k, dw, sizeof(int) * (size_t)outdeg);
  return buf;
}

static int dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                      int outdegree, const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm* graph)
{
  int inter = 0;
  if (!reorder || in_hook || comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info, reorder, graph);
  static const char call[] = "MPI_Dist_graph_create_adjacent";
  char why[MSG_LEN] = "";
  int rank, size;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  /* Left to MPI (which reports an error as without this library), agreed silently: negative
   * degrees, lists or weights missing, a neighbour that is not a rank of comm, a negative weight.
   * The adjacency differs between ranks, and an MPI that does not check it (MPICH) goes on into
   * its collective calls, which every rank must then reach. */
  int sw_given = sourceweights != MPI_UNWEIGHTED, dw_given = destweights != MPI_UNWEIGHTED;
  int leave = indegree < 0 || outdegree < 0 || (indegree && !sources) || (outdegree && !destinations) ||
              (sw_given && indegree && (!sourceweights || sourceweights == MPI_WEIGHTS_EMPTY)) ||
              (dw_given && outdegree && (!destweights || destweights == MPI_WEIGHTS_EMPTY));
  for (int i = 0; !leave && i < indegree; i++)
    leave = sources[i] < 0 || sources[i] >= size || (sw_given && sourceweights[i] < 0);
  for (int i = 0; !leave && i < outdegree; i++)
    leave = destinations[i] < 0 || destinations[i] >= size || (dw_given && destweights[i] < 0);
  hook_enter();
  errhandlers saved;
  save_errhandlers(comm, &saved);
  if (!agree_ready(comm, call, leave)) {
    restore_errhandlers(comm, &saved);
    hook_leave();
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                           destweights, info, reorder, graph);
  }
  int* order = malloc(sizeof(int) * (size_t)size);
  int g = py.GILStateEnsure();
  PyObject* fcomm = py.LongFromLong((long)PMPI_Comm_c2f(comm));
  PyObject* s = int_bytes(sources, indegree);
  PyObject* d = int_bytes(destinations, outdegree);
  PyObject* sw = int_bytes(sw_given ? sourceweights : NULL, sw_given ? indegree : 0);
  PyObject* dw = int_bytes(dw_given ? destweights : NULL, dw_given ? outdegree : 0);
  PyObject* flags = py.LongFromLong((long)(sw_given | dw_given << 1));
  PyObject* args = fcomm && s && d && sw && dw && flags ? py.TuplePack(6, fcomm, s, d, sw, dw, flags) : NULL;
  int ok = call_hook(dist_graph_hook, args, size, order, why, "mpitaskmap.dist_graph_order");
  drop(args), drop(flags), drop(dw), drop(sw), drop(d), drop(s), drop(fcomm);
  py.GILStateRelease(g);
  restore_errhandlers(comm, &saved);
  int rc;
  if (!agree(comm, ok, why, call)) {
    rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                         destweights, info, reorder, graph);
  } else if (is_identity(order, size)) {
    rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                         destweights, info, 0, graph);
  } else {
    /* The process of old rank q gets new rank n = order[q] and plays vertex n, which old rank n
     * declared: it sends its own adjacency (vertex q's) to new rank q and receives vertex n's
     * from new rank order[n].  Vertex numbers are new ranks: the lists need no translation.
     * Python agreed that the weights are given on every rank or on none (sw_given == dw_given). */
    int weighted = sw_given;
    MPI_Comm tmp;
    rc = PMPI_Comm_split(comm, 0, order[rank], &tmp);
    if (rc == MPI_SUCCESS) {
      int n = order[rank], from = order[n], len, got_len;
      int* mine = pack_adjacency(indegree, sources, sourceweights, outdegree, destinations, destweights, weighted,
                                 &len);
      PMPI_Sendrecv(&len, 1, MPI_INT, rank, 0, &got_len, 1, MPI_INT, from, 0, tmp, MPI_STATUS_IGNORE);
      int* got = malloc(sizeof(int) * (size_t)got_len);
      PMPI_Sendrecv(mine, len, MPI_INT, rank, 1, got, got_len, MPI_INT, from, 1, tmp, MPI_STATUS_IGNORE);
      int in = got[0], out = got[1];
      const int* src = got + 2;
      const int* sw_got = weighted ? src + in : MPI_UNWEIGHTED;
      const int* dst = src + in * (weighted ? 2 : 1);
      const int* dw_got = weighted ? dst + out : MPI_UNWEIGHTED;
      if (weighted && !in)
        sw_got = MPI_WEIGHTS_EMPTY;
      if (weighted && !out)
        dw_got = MPI_WEIGHTS_EMPTY;
      rc = PMPI_Dist_graph_create_adjacent(tmp, in, src, sw_got, out, dst, dw_got, info, 0, graph);
      free(got);
      free(mine);
      PMPI_Comm_free(&tmp);
    }
  }
  free(order);
  hook_leave();
  return rc;
}

CORE_API int mpitaskmap_dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                                  const int sourceweights[], int outdegree, const int destinations[],
                                                  const int destweights[], MPI_Info info, int reorder, MPI_Comm* graph)
{
  return dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                    info, reorder, graph);
}

/* -- Fortran ----------------------------------------------------------------------------------
 * The mpif.h / `use mpi` entry points in gfortran's spellings (and Open MPI's `use mpi_f08`
 * one, whose TYPE(MPI_Comm) is one INTEGER and whose ierror may be absent): handles converted
 * with MPI_Comm_f2c, LOGICALs read as nonzero, then the C functions above.  Open MPI's own
 * Fortran bindings call PMPI_Cart_create directly, so a C interposer alone would miss them. */

static void f_cart_create(const MPI_Fint* comm, const MPI_Fint* ndims, const MPI_Fint* dims, const MPI_Fint* periods,
                          const MPI_Fint* reorder, MPI_Fint* comm_cart, MPI_Fint* ierror)
{
  int nd = *ndims > 0 ? (int)*ndims : 0;
  int* d = malloc(sizeof(int) * (size_t)(nd ? nd : 1));
  int* p = malloc(sizeof(int) * (size_t)(nd ? nd : 1));
  for (int i = 0; i < nd; i++) {
    d[i] = (int)dims[i];
    p[i] = periods[i] != 0;
  }
  MPI_Comm cart = MPI_COMM_NULL;
  int rc = cart_create(MPI_Comm_f2c(*comm), (int)*ndims, d, p, *reorder != 0, &cart);
  if (rc == MPI_SUCCESS) /* as MPI's own Fortran bindings: the handle is written on success only */
    *comm_cart = MPI_Comm_c2f(cart);
  if (ierror)
    *ierror = (MPI_Fint)rc;
  free(p);
  free(d);
}

CORE_API void mpitaskmap_f_cart_create(const MPI_Fint* comm, const MPI_Fint* ndims, const MPI_Fint* dims,
                                       const MPI_Fint* periods, const MPI_Fint* reorder, MPI_Fint* comm_cart,
                                       MPI_Fint* ierror)
{
  f_cart_create(comm, ndims, dims, periods, reorder, comm_cart, ierror);
}

/* The Fortran MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses of variables of the MPI
 * library (Open MPI: mpi_fortran_unweighted_ ...), found by name; where none is found (MPICH
 * names them otherwise) the Fortran call goes to MPI's own Fortran binding, unchanged. */
static void* f_sentinel(const char* const names[])
{
  for (int i = 0; names[i]; i++) {
    void* a = dlsym(RTLD_DEFAULT, names[i]);
    if (a)
      return a;
  }
  return NULL;
}

/* 1 when handled, 0 when the shim must call MPI's own binding. */
CORE_API int mpitaskmap_f_dist_graph_create_adjacent(const MPI_Fint* comm, const MPI_Fint* indegree,
                                                     const MPI_Fint* sources, const MPI_Fint* sourceweights,
                                                     const MPI_Fint* outdegree, const MPI_Fint* destinations,
                                                     const MPI_Fint* destweights, const MPI_Fint* info,
                                                     const MPI_Fint* reorder, MPI_Fint* comm_dist_graph,
                                                     MPI_Fint* ierror)
{
  static const char* const unweighted_names[] = {"mpi_fortran_unweighted_", "mpi_fortran_unweighted",
                                                 "mpi_fortran_unweighted__", "MPI_FORTRAN_UNWEIGHTED", NULL};
  static const char* const empty_names[] = {"mpi_fortran_weights_empty_", "mpi_fortran_weights_empty",
                                            "mpi_fortran_weights_empty__", "MPI_FORTRAN_WEIGHTS_EMPTY", NULL};
  void* unweighted = f_sentinel(unweighted_names);
  void* empty = f_sentinel(empty_names);
  if (!unweighted || !empty)
    return 0; /* the shim calls MPI's own Fortran binding */
  int in = *indegree > 0 ? (int)*indegree : 0, out = *outdegree > 0 ? (int)*outdegree : 0;
  int *s = malloc(sizeof(int) * (size_t)(in + 1)), *d = malloc(sizeof(int) * (size_t)(out + 1));
  int *sw = malloc(sizeof(int) * (size_t)(in + 1)), *dw = malloc(sizeof(int) * (size_t)(out + 1));
  for (int i = 0; i < in; i++)
    s[i] = (int)sources[i];
  for (int i = 0; i < out; i++)
    d[i] = (int)destinations[i];
  const int *swp = sw, *dwp = dw;
  if ((const void*)sourceweights == unweighted)
    swp = MPI_UNWEIGHTED;
  else if ((const void*)sourceweights == empty)
    swp = MPI_WEIGHTS_EMPTY;
  else
    for (int i = 0; i < in; i++)
      sw[i] = (int)sourceweights[i];
  if ((const void*)destweights == unweighted)
    dwp = MPI_UNWEIGHTED;
  else if ((const void*)destweights == empty)
    dwp = MPI_WEIGHTS_EMPTY;
  else
    for (int i = 0; i < out; i++)
      dw[i] = (int)destweights[i];
  MPI_Comm graph = MPI_COMM_NULL;
  int rc = dist_graph_create_adjacent(MPI_Comm_f2c(*comm), (int)*indegree, s, swp, (int)*outdegree, d, dwp,
                                      MPI_Info_f2c(*info), *reorder != 0, &graph);
  if (rc == MPI_SUCCESS)
    *comm_dist_graph = MPI_Comm_c2f(graph);
  if (ierror)
    *ierror = (MPI_Fint)rc;
  free(dw), free(sw), free(d), free(s);
  return 1;
}
