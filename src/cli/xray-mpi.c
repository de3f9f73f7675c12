/* xray-mpi: every node of a cluster measured, and where the nodes differ.
 *
 *   mpirun -n N xray-mpi [--format=text|json] [PROBE]...
 *
 * The ranks of one node (MPI_Comm_split_type, shared memory) elect one,
 * which measures the node while the others wait without spinning (they
 * would take CPU time from the measurement); rank 0 gathers every node's
 * values and writes one report for the whole cluster: each node's values,
 * which values differ across nodes, and which nodes are the outliers.
 * With --simulate=SPEC (given once for every rank, or once for each rank
 * in turn) every rank is a node of its own that measures that simulated
 * machine: how make check tests the report on one host. */
#include "xray-internal.h" /* xray__json_string */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *prog = "xray-mpi";

/* Two measured values of one unit differ when they are further apart than
 * this, relative to the smaller: the tolerance xray flags an OS view
 * with, for values that are counts and sizes; twice AGREE of the
 * bandwidth probe for times and rates, which move from run to run on one
 * node too. */
#define SIZE_TOLERANCE 0.03
#define RATE_TOLERANCE 0.20

#define MAX_SPECS 64
#define MAX_PROBES 16

struct args {
  int json;
  double budget;
  const char *spec[MAX_SPECS];
  int nspec;
  const char *probe[MAX_PROBES];
  int nprobe;
};

/* One value of one node, as it travels to rank 0. */
struct val {
  char name[48], unit[16], text[160];
  double x; /* NAN: unknown */
  int confirmed;
  char source[16];
};

struct node {
  char name[256], machine[200];
  int rank, nranks, nval;
  struct val *v;
};

static void
usage(FILE *f)
{
  fprintf(f,
          "Usage: mpirun -n N %s [OPTION]... [PROBE]...\n"
          "Measure every node of a cluster with the X-Ray probes (one rank a node\n"
          "measures; the others wait) and report which values differ across nodes.\n"
          "With no PROBE, run every probe.\n"
          "\n"
          "  -f, --format=FORMAT   text (default) or json: one document for the cluster\n"
          "  -b, --budget=SECONDS  time one probe may spend (default 2)\n"
          "  -s, --simulate=SPEC   each rank a node of its own, measuring a simulated\n"
          "                        machine (see xray(1)); given several times, rank r\n"
          "                        takes the (r mod n)-th\n"
          "  -h, --help            display this help and exit\n"
          "  -V, --version         output version information and exit\n"
          "\nExit status: 0 on success, 1 if a probe failed on a node, 2 on a usage error.\n",
          prog);
}

/* p, or the whole job ends: out of memory. */
static void *
need(void *p)
{
  if (!p) {
    fprintf(stderr, "%s: out of memory\n", prog);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return p;
}

/* A usage error: said once (by rank 0), and every rank ends with 2. */
static void
refuse(int rank, const char *fmt, const char *arg)
{
  if (rank == 0) {
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
  }
  MPI_Finalize();
  exit(2);
}

/* A simulated machine that cannot be made is a usage error, named
 * before anything is measured. */
static void
check_spec(int rank, const char *spec)
{
  char err[640] = "", msg[800];
  xray_machine *m = xray_machine_simulated(spec, err, sizeof err);

  if (!m) {
    snprintf(msg, sizeof msg, "invalid --simulate '%s': %s", spec, err);
    refuse(rank, "%s", msg);
  }
  xray_machine_free(m);
}

static void
parse(int argc, char **argv, int rank, struct args *a)
{
  static const struct option opts[] = {
    { "format", required_argument, 0, 'f' },   { "budget", required_argument, 0, 'b' },
    { "simulate", required_argument, 0, 's' }, { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },        { 0, 0, 0, 0 }
  };
  char *end;
  int c;

  opterr = rank == 0;
  while ((c = getopt_long(argc, argv, "f:b:s:hV", opts, NULL)) != -1)
    switch (c) {
    case 'f':
      if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
        refuse(rank, "invalid --format '%s' (text or json)", optarg);
      a->json = strcmp(optarg, "json") == 0;
      break;
    case 'b':
      errno = 0;
      a->budget = strtod(optarg, &end);
      if (errno || end == optarg || *end || strspn(optarg, "0123456789.") != strlen(optarg)
          || !(a->budget > 0) || a->budget > 3600)
        refuse(rank, "invalid --budget '%s' (seconds, more than 0 and at most 3600)", optarg);
      break;
    case 's':
      if (a->nspec == MAX_SPECS)
        refuse(rank, "more than %s --simulate specs", "64");
      check_spec(rank, optarg);
      a->spec[a->nspec++] = optarg;
      break;
    case 'h':
      if (rank == 0)
        usage(stdout);
      MPI_Finalize();
      exit(0);
    case 'V':
      if (rank == 0)
        printf("%s (xray) %s\n", prog, xray_version());
      MPI_Finalize();
      exit(0);
    default:
      refuse(rank, "%s", "unknown option");
    }
  for (; optind < argc; optind++) {
    if (!xray_probe_find(argv[optind]))
      refuse(rank, "unknown probe '%s' (xray --list names them)", argv[optind]);
    if (a->nprobe == MAX_PROBES)
      refuse(rank, "more than %s probes named", "16");
    a->probe[a->nprobe++] = argv[optind];
  }
}

/* The node's values as lines NAME TAB UNIT TAB VALUE TAB CONFIRMED TAB
 * SOURCE TAB TEXT, after a first line with the machine; *len its size. */
static char *
measure(const struct args *a, const char *spec, int *rc, int *len)
{
  char err[640] = "", *buf = NULL;
  size_t size = 0, i;
  FILE *f = open_memstream(&buf, &size);
  xray_machine *m =
      spec ? xray_machine_simulated(spec, err, sizeof err) : xray_machine_real(err, sizeof err);
  xray_report *r = xray_report_new();

  need(f);
  need(r);
  if (!m) {
    fprintf(f, "%s\n", err);
    *rc = 1;
  } else {
    xray_machine_set_budget(m, a->budget);
    for (i = 0; i < (size_t) a->nprobe || (!a->nprobe && xray_probe_at(i)); i++)
      if (xray_probe_run(a->nprobe ? xray_probe_find(a->probe[i]) : xray_probe_at(i), m, r))
        *rc = 1;
    fprintf(f, "%s\n", xray_report_machine(r));
    for (i = 0; i < xray_report_count(r); i++) {
      const xray_value *v = xray_report_at(r, i);
      const char *text = xray_value_text(v);
      fprintf(f, "%s\t%s\t%.17g\t%d\t%s\t%s\n", xray_value_name(v), xray_value_unit(v),
              xray_value_number(v), xray_value_confirmed(v), xray_source_name(xray_value_source(v)),
              text ? text : "");
    }
    xray_machine_free(m);
  }
  xray_report_free(r);
  fclose(f);
  *len = (int) size + 1;
  return buf;
}

/* Waits for the node's measuring rank without taking a CPU from it. */
static void
idle_wait(MPI_Comm node)
{
  struct timespec nap = { 0, 10000000 };
  MPI_Request req;
  int done = 0;

  MPI_Ibarrier(node, &req);
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
    nanosleep(&nap, NULL);
}

/* A node's lines back into n. */
static void
unpack(struct node *n, char *text)
{
  char *line, *save = NULL;
  int cap = 0;

  line = strtok_r(text, "\n", &save);
  snprintf(n->machine, sizeof n->machine, "%s", line ? line : "");
  while ((line = strtok_r(NULL, "\n", &save))) {
    struct val *v;
    char *f[6], *p = line;
    int k;
    for (k = 0; k < 6; k++) {
      f[k] = p;
      p = strchr(p, '\t');
      if (p)
        *p++ = 0;
      else
        break;
    }
    if (k < 5)
      continue;
    if (n->nval == cap) {
      cap = cap ? 2 * cap : 256;
      n->v = need(realloc(n->v, cap * sizeof *n->v));
    }
    v = &n->v[n->nval++];
    snprintf(v->name, sizeof v->name, "%s", f[0]);
    snprintf(v->unit, sizeof v->unit, "%s", f[1]);
    v->x = strtod(f[2], NULL);
    v->confirmed = atoi(f[3]);
    snprintf(v->source, sizeof v->source, "%s", f[4]);
    snprintf(v->text, sizeof v->text, "%s", k >= 5 ? f[5] : "");
  }
}

static const struct val *
find(const struct node *n, const char *name)
{
  int i;

  for (i = 0; i < n->nval; i++)
    if (strcmp(n->v[i].name, name) == 0)
      return &n->v[i];
  return NULL;
}

static int
known(const struct val *v)
{
  return v && (v->text[0] || isfinite(v->x));
}

/* Whether a and b (known, of one value) are different values. */
static int
differ(const struct val *a, const struct val *b)
{
  static const char *const rates[] = { "cycles", "bytes/cycle", "MHz", "cycles per op", "ns" };
  double tol = SIZE_TOLERANCE, lo;
  size_t i;

  if (a->text[0] || b->text[0])
    return strcmp(a->text, b->text) != 0;
  for (i = 0; i < sizeof rates / sizeof *rates; i++)
    if (strcmp(a->unit, rates[i]) == 0)
      tol = RATE_TOLERANCE;
  lo = fmin(fabs(a->x), fabs(b->x));
  return fabs(a->x - b->x) > tol * lo && a->x != b->x;
}

static void
val_out(FILE *f, const struct val *v, int json)
{
  if (!known(v))
    fputs(json ? "null" : "unknown", f);
  else if (v->text[0]) {
    if (json)
      xray__json_string(f, v->text);
    else
      fputs(v->text, f);
  } else
    fprintf(f, "%.10g", v->x);
}

/* What one value does across the nodes: the group of nodes that agree with
 * the most others (the majority), the nodes outside it (outliers), and
 * the nodes where it is unknown.  0 where every node that knows it
 * agrees. */
struct verdict {
  int differs, unknown, *outlier, majority; /* majority: a node of it, or -1 */
  const struct val **v; /* each node's value of it, found once */
};

static void
judge(const struct node *nodes, int nn, const char *name, struct verdict *d)
{
  int i, j, best = 0;

  d->differs = d->unknown = 0;
  d->majority = -1;
  for (i = 0; i < nn; i++)
    d->v[i] = find(&nodes[i], name);
  for (i = 0; i < nn; i++) {
    const struct val *a = d->v[i];
    int agree = 0;
    d->outlier[i] = 0;
    if (!known(a)) {
      d->unknown++;
      continue;
    }
    for (j = 0; j < nn; j++) {
      const struct val *b = d->v[j];
      if (known(b)) {
        if (differ(a, b))
          d->differs = 1;
        else
          agree++;
      }
    }
    if (agree > best) {
      best = agree;
      d->majority = i;
    }
  }
  /* Outliers only where the majority is one: more than half of the nodes
   * that know the value agree with it. */
  if (d->differs && d->majority >= 0 && 2 * best > nn - d->unknown)
    for (i = 0; i < nn; i++)
      d->outlier[i] = known(d->v[i]) && differ(d->v[i], d->v[d->majority]);
}

/* Every node with every value, the opening of the JSON document. */
static void
json_nodes(FILE *f, const struct node *nodes, int nn)
{
  int i, k;

  fprintf(f, "{\n  \"xray_version\": ");
  xray__json_string(f, xray_version());
  fprintf(f, ",\n  \"nodes\": [");
  for (i = 0; i < nn; i++) {
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    xray__json_string(f, nodes[i].name);
    fprintf(f, ", \"rank\": %d, \"ranks\": %d, \"machine\": ", nodes[i].rank, nodes[i].nranks);
    xray__json_string(f, nodes[i].machine);
    fprintf(f, ",\n     \"values\": {");
    for (k = 0; k < nodes[i].nval; k++) {
      const struct val *v = &nodes[i].v[k];
      fprintf(f, "%s\n       ", k ? "," : "");
      xray__json_string(f, v->name);
      fprintf(f, ": {\"value\": ");
      val_out(f, v, 1);
      fprintf(f, ", \"unit\": ");
      xray__json_string(f, v->unit);
      fprintf(f, ", \"source\": ");
      xray__json_string(f, v->source);
      fprintf(f, ", \"confirmed\": %s}", v->confirmed ? "true" : "false");
    }
    fprintf(f, "}}");
  }
  fprintf(f, "\n  ],\n  \"differ\": [");
}

/* One value that differs: every node's value and the outliers. */
static void
differ_out(FILE *f, const struct node *nodes, int nn, const char *name, const struct verdict *d,
           int json, int first)
{
  int i, said = 0;

  if (json) {
    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    xray__json_string(f, name);
    fprintf(f, ", \"values\": {");
  } else
    fprintf(f, "  %-26s", name);
  for (i = 0; i < nn; i++) {
    const struct val *v = d->v[i];
    fprintf(f, "%s", i ? ", " : json ? "" : " ");
    if (json) {
      xray__json_string(f, nodes[i].name);
      fprintf(f, ": ");
    }
    val_out(f, v, json);
    if (!json)
      fprintf(f, " on %s%s", nodes[i].name,
              known(v) && !v->confirmed && !strcmp(v->source, "measured") ? " (unconfirmed)" : "");
  }
  if (json)
    fprintf(f, "}, \"outliers\": [");
  for (i = 0; i < nn; i++)
    if (d->outlier[i]) {
      fprintf(f, "%s", said++ ? ", " : json ? "" : "; outliers: ");
      if (json)
        xray__json_string(f, nodes[i].name);
      else
        fputs(nodes[i].name, f);
    }
  fputs(json ? "]}" : "\n", f);
}

/* The cluster's report: the nodes, the values that differ across them
 * and their outliers, and how many values are the same everywhere. */
static void
report(FILE *f, const struct node *nodes, int nn, int json)
{
  struct verdict d;
  int i, k, ndiff = 0, nsame = 0;

  d.outlier = need(calloc((size_t) nn, sizeof *d.outlier));
  d.v = need(calloc((size_t) nn, sizeof *d.v));
  if (json)
    json_nodes(f, nodes, nn);
  else {
    fprintf(f, "xray-mpi %s: %d node%s\n", xray_version(), nn, nn > 1 ? "s" : "");
    for (i = 0; i < nn; i++)
      fprintf(f, "  %-20s rank %d (%d rank%s): %s\n", nodes[i].name, nodes[i].rank, nodes[i].nranks,
              nodes[i].nranks > 1 ? "s" : "", nodes[i].machine);
    fprintf(f, "\nValues that differ across nodes:\n");
  }
  /* The values in the first node's order: every node ran the same probes. */
  for (k = 0; nn > 0 && k < nodes[0].nval; k++) {
    const char *name = nodes[0].v[k].name;
    judge(nodes, nn, name, &d);
    if (!d.differs)
      nsame += d.unknown < nn;
    else
      differ_out(f, nodes, nn, name, &d, json, ndiff++ == 0);
  }
  if (json)
    fprintf(f, "%s],\n  \"same\": %d\n}\n", ndiff ? "\n  " : "", nsame);
  else
    fprintf(f, "%s\n%d value%s the same on every node that measured %s.\n", ndiff ? "" : "  none\n",
            nsame, nsame == 1 ? " is" : "s are", nsame == 1 ? "it" : "them");
  free(d.outlier);
  free(d.v);
}

/* Rank 0 gathers every rank's lines (len bytes of mine; a node's
 * measuring rank has some, the others none), host name and node, and
 * writes the report; every rank takes part.  The exit status on rank 0:
 * the worst of every node's, or 1 if the report could not be written. */
static int
gather(const struct args *a, int rank, int size, char *mine, int len, const char *host, int hostlen,
       int leader, int nsize, int rc)
{
  int pair[2] = { leader, nsize }, *pairs = NULL, *lens = NULL, *offs = NULL, worst = rc;
  int i, total = 0, nn = 0;
  char *all = NULL, *hosts = NULL;
  struct node *nodes = NULL;

  if (rank == 0) {
    lens = need(calloc((size_t) size, sizeof *lens));
    offs = need(calloc((size_t) size, sizeof *offs));
    hosts = need(calloc((size_t) size, (size_t) hostlen));
    pairs = need(calloc((size_t) size * 2, sizeof *pairs));
  }
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Gather(host, hostlen, MPI_CHAR, hosts, hostlen, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Gather(pair, 2, MPI_INT, pairs, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Reduce(&rc, &worst, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  for (i = 0; rank == 0 && i < size; i++) {
    offs[i] = total;
    total += lens[i];
  }
  if (rank == 0)
    all = need(malloc((size_t) total + 1));
  MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    nodes = need(calloc((size_t) size, sizeof *nodes));
    for (i = 0; i < size; i++)
      if (pairs[2 * i] && lens[i] > 0) {
        snprintf(nodes[nn].name, sizeof nodes[nn].name, "%s", hosts + (size_t) i * hostlen);
        nodes[nn].rank = i;
        nodes[nn].nranks = pairs[2 * i + 1];
        unpack(&nodes[nn], all + offs[i]);
        nn++;
      }
    report(stdout, nodes, nn, a->json);
    if (fflush(stdout) != 0 || ferror(stdout)) {
      fprintf(stderr, "%s: cannot write the standard output\n", prog);
      worst = 1;
    }
    for (i = 0; i < nn; i++)
      free(nodes[i].v);
  }
  free(nodes);
  free(pairs);
  free(all);
  free(lens);
  free(offs);
  free(hosts);
  return rank == 0 ? worst : rc;
}

int
main(int argc, char **argv)
{
  struct args a = { 0, 2.0, { NULL }, 0, { NULL }, 0 };
  MPI_Comm node;
  int rank, size, nrank, nsize, rc = 0, len = 0, hlen;
  char *mine = NULL, host[MPI_MAX_PROCESSOR_NAME + 32] = "";

  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "%s: MPI_Init failed\n", prog);
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  parse(argc, argv, rank, &a);

  /* A node: the ranks that share memory; a simulated rank is a node of
   * its own. */
  if (a.nspec)
    MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &node);
  else
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &nrank);
  MPI_Comm_size(node, &nsize);

  MPI_Get_processor_name(host, &hlen);
  if (a.nspec)
    snprintf(host + hlen, sizeof host - (size_t) hlen, "/sim%d", rank);
  /* The node's first rank measures; the others wait for it. */
  if (nrank == 0) {
    MPI_Request done;
    mine = measure(&a, a.nspec ? a.spec[rank % a.nspec] : NULL, &rc, &len);
    MPI_Ibarrier(node, &done);
    MPI_Wait(&done, MPI_STATUS_IGNORE);
  } else
    idle_wait(node);
  rc = gather(&a, rank, size, mine, len, host, (int) sizeof host, nrank == 0, nsize, rc);
  free(mine);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return rc;
}
