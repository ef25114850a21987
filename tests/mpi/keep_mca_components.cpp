// Preloaded into the MPI jobs of the ASan build: dlclose does nothing, so that Open MPI's MCA
// components, which MPI_Finalize unloads, are still mapped when LeakSanitizer reports at exit. Their
// allocations then carry module names that tests/mpi/lsan.supp can suppress, instead of
// "<unknown module>", which no suppression can name.
extern "C" int dlclose(void* handle) {
  (void)handle;
  return 0;
}
