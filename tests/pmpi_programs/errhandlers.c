/* What an application sees of MPI's error handling around MPI_Cart_create(reorder = 1): the
 * same with and without the mpitaskmap PMPI library (tests/runtime/test_pmpi.py runs both).
 *
 *   errhandlers [return] [badcart | baddist] [nosend]
 *
 * Rank 0 prints the error handler of MPI_COMM_WORLD and MPI_COMM_SELF before the call and of
 * both and the returned communicator after it ("fatal", "return" or "other"), then whether an
 * attribute the application put on MPI_COMM_WORLD kept its value.  "return": the application
 * sets MPI_ERRORS_RETURN on MPI_COMM_WORLD first.  "badcart": the grid has one cell more than
 * there are ranks (an erroneous call).  "baddist": MPI_Dist_graph_create_adjacent(reorder = 1)
 * in its place, with a destination that is no rank (an erroneous call).  Then rank 0 sends to rank <size> of the returned
 * communicator (an invalid rank): MPI aborts the job under MPI_ERRORS_ARE_FATAL; under
 * MPI_ERRORS_RETURN rank 0 prints "send: error class <name>" and the program ends normally. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char* eh_name(MPI_Comm comm)
{
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(comm, &eh);
  const char* name = eh == MPI_ERRORS_ARE_FATAL ? "fatal" : eh == MPI_ERRORS_RETURN ? "return" : "other";
  MPI_Errhandler_free(&eh);
  return name;
}

static const char* class_name(int code)
{
  int cls;
  MPI_Error_class(code, &cls);
  return cls == MPI_SUCCESS ? "MPI_SUCCESS" : cls == MPI_ERR_RANK ? "MPI_ERR_RANK" : cls == MPI_ERR_ARG ? "MPI_ERR_ARG"
         : cls == MPI_ERR_DIMS ? "MPI_ERR_DIMS" : cls == MPI_ERR_TOPOLOGY ? "MPI_ERR_TOPOLOGY" : "other";
}

int main(int argc, char** argv)
{
  int ret = 0, badcart = 0, baddist = 0, send = 1;
  for (int i = 1; i < argc; i++) {
    ret |= !strcmp(argv[i], "return");
    badcart |= !strcmp(argv[i], "badcart");
    baddist |= !strcmp(argv[i], "baddist");
    send &= strcmp(argv[i], "nosend") != 0;
  }
  MPI_Init(&argc, &argv);
  int rank, size, keyval, value = 42, *got = NULL, flag = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &value);
  if (ret)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == 0) { /* flushed: an abort in the create below may kill this process (hydra kills every rank) */
    printf("before: world %s self %s\n", eh_name(MPI_COMM_WORLD), eh_name(MPI_COMM_SELF));
    fflush(stdout);
  }
  int dims[1] = {size + badcart}, periods[1] = {0};
  MPI_Comm cart = MPI_COMM_NULL;
  int src[1] = {rank}, dst[1] = {size}; /* dst: no rank */
  int rc = baddist ? MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                                    MPI_INFO_NULL, 1, &cart)
                   : MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart);
  MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &got, &flag);
  if (rank == 0) {
    printf("create: %s\n", class_name(rc));
    printf("after: world %s self %s cart %s\n", eh_name(MPI_COMM_WORLD), eh_name(MPI_COMM_SELF),
           cart == MPI_COMM_NULL ? "null" : eh_name(cart));
    printf("attribute: %s\n", flag && got == &value && *got == 42 ? "kept" : "changed");
    fflush(stdout);
  }
  if (send && rank == 0) {
    int x = 1;
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, cart == MPI_COMM_NULL ? MPI_COMM_WORLD : cart);
    printf("send: error class %s\n", class_name(rc));
    fflush(stdout);
  }
  if (cart != MPI_COMM_NULL)
    MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
