/* xray: measure hardware parameters with the X-Ray micro-benchmarks. */
#include "cli/cli.h"
#include "xray.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "xray";

static void
usage_error(const char *fmt, const char *arg)
{
  fprintf(stderr, "%s: ", prog);
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
  exit(2);
}

/* What the command line asks for. */
struct settings {
  xray_format fmt;
  const char *output, *trace, *simulate, *cc, *cflags, *ops, *types, *record, *replay;
  const char *plot, *given;
  struct xray_cli_given *gv; /* the values --given gives, ngv of them */
  size_t ngv;
  long repeat, kind; /* kind: 1.., or 0 for every kind */
  xray_kernel kernel;
  double budget;
  const xray_probe *sel[16];
  size_t nsel;
};

/* arg, unless it is empty: then the usage error msg (with a %s for arg). */
static char *
nonempty(char *arg, const char *msg)
{
  if (!*arg)
    usage_error(msg, arg);
  return arg;
}

/* arg as a whole number from 1 to max; a usage error (msg) otherwise. */
static long
whole(const char *arg, long max, const char *msg)
{
  char *end;
  long v;

  errno = 0;
  v = strtol(arg, &end, 10);
  if (errno || end == arg || *end || v < 1 || v > max)
    usage_error(msg, arg);
  return v;
}

/* Option c's value arg into s; a bad value ends xray here (exit 2). */
static void
take_option(int c, char *arg, struct settings *s)
{
  switch (c) {
  case 'f':
    if (xray_format_parse(arg, &s->fmt))
      usage_error("invalid --format '%s' (text, json, shell or header)", arg);
    break;
  case 'o':
    s->output = nonempty(arg, "invalid --output '%s' (a file name, or - for the standard output)");
    break;
  case 't':
    s->trace = nonempty(arg, "invalid --trace '%s' (a file name, or - for the standard output)");
    break;
  case 'b':
    if (xray_cli_decimal(arg, &s->budget) || !(s->budget > 0) || s->budget > 3600)
      usage_error("invalid --budget '%s' (seconds, more than 0 and at most 3600)", arg);
    break;
  case 's':
    s->simulate = arg;
    break;
  case 'k':
    if (strcmp(arg, "auto") == 0)
      s->kernel = XRAY_KERNEL_AUTO;
    else if (strcmp(arg, "machine-code") == 0)
      s->kernel = XRAY_KERNEL_MACHINE_CODE;
    else if (strcmp(arg, "c") == 0)
      s->kernel = XRAY_KERNEL_C;
    else
      usage_error("invalid --kernel '%s' (auto, machine-code or c)", arg);
    break;
  case 'C':
    s->cc = nonempty(arg, "invalid --cc '%s' (a compiler command)");
    break;
  case 'F':
    s->cflags = arg;
    break;
  case 'O':
    s->ops = arg;
    break;
  case 'T':
    s->types = arg;
    break;
  case 'R':
    s->record = nonempty(arg, "invalid --record '%s' (a directory)");
    break;
  case 'N':
    s->repeat = whole(arg, 20, "invalid --repeat '%s' (a whole number from 1 to 20)");
    break;
  case 'P':
    s->replay = nonempty(arg, "invalid --replay '%s' (a directory made by --record)");
    break;
  case 'G':
    s->plot = nonempty(arg, "invalid --plot '%s' (a directory)");
    break;
  case 'K':
    s->kind = whole(arg, 8, "invalid --kind '%s' (a kind of core: a whole number from 1 to 8)");
    break;
  case 'g':
    s->given = nonempty(arg, "invalid --given '%s' (a file of xray --format=shell output)");
    break;
  }
}

/* The probes argv names from optind on, else every probe. */
static void
select_probes(int argc, char **argv, struct settings *s)
{
  size_t i;

  for (; optind < argc; optind++) {
    const xray_probe *p = xray_probe_find(argv[optind]);
    if (!p) {
      fprintf(stderr, "%s: unknown probe '%s' (known:", prog, argv[optind]);
      for (i = 0; xray_probe_at(i); i++)
        fprintf(stderr, " %s", xray_probe_at(i)->name);
      fprintf(stderr, ")\nTry '%s --help' for more information.\n", prog);
      exit(2);
    }
    if (s->nsel == sizeof s->sel / sizeof *s->sel)
      usage_error("more than %s probes named", "16");
    s->sel[s->nsel++] = p;
  }
  if (s->nsel == 0)
    for (; xray_probe_at(s->nsel) && s->nsel < sizeof s->sel / sizeof *s->sel; s->nsel++)
      s->sel[s->nsel] = xray_probe_at(s->nsel);
}

/* Options and probe names into s; a usage error, --help, --list or
 * --version ends here. */
static void
parse_args(int argc, char **argv, struct settings *s)
{
  static const struct option opts[] = {
    { "format", required_argument, 0, 'f' },   { "output", required_argument, 0, 'o' },
    { "trace", required_argument, 0, 't' },    { "budget", required_argument, 0, 'b' },
    { "simulate", required_argument, 0, 's' }, { "kernel", required_argument, 0, 'k' },
    { "cc", required_argument, 0, 'C' },       { "cflags", required_argument, 0, 'F' },
    { "ops", required_argument, 0, 'O' },      { "types", required_argument, 0, 'T' },
    { "record", required_argument, 0, 'R' },   { "repeat", required_argument, 0, 'N' },
    { "replay", required_argument, 0, 'P' },   { "plot", required_argument, 0, 'G' },
    { "kind", required_argument, 0, 'K' },     { "given", required_argument, 0, 'g' },
    { "list", no_argument, 0, 'l' },           { "help", no_argument, 0, 'h' },
    { "version", no_argument, 0, 'V' },        { 0, 0, 0, 0 }
  };
  size_t i;
  int c;

  while ((c = getopt_long(argc, argv, "f:o:t:b:s:k:lhV", opts, NULL)) != -1)
    switch (c) {
    case 'l':
      for (i = 0; xray_probe_at(i); i++)
        printf("%-10s %s\n", xray_probe_at(i)->name, xray_probe_at(i)->summary);
      exit(xray_cli_stdout_done());
    case 'h':
      xray_cli_usage(stdout, prog);
      exit(xray_cli_stdout_done());
    case 'V':
      printf("xray %s\n", xray_version());
      exit(xray_cli_stdout_done());
    case '?':
      fprintf(stderr, "Try '%s --help' for more information.\n", prog);
      exit(2);
    default:
      take_option(c, optarg, s);
    }
  select_probes(argc, argv, s);
}

/* The plot's files go through cli/outfile.c as the results do: replaced atomically, a device or FIFO written through. */
#ifdef XRAY__HAVE_CAIRO
static FILE *
plot_open(int which, const char *path)
{
  return xray_cli_out_open(XRAY_CLI_OUT_PLOT_INDEX + which, path);
}

static int
plot_commit(int which, const char *path)
{
  return xray_cli_out_commit(XRAY_CLI_OUT_PLOT_INDEX + which, path);
}
#endif

/* The points a plot kept, on to the trace. */
static void
copy_points(FILE *from, FILE *to)
{
  char buf[8192];
  size_t n;

  rewind(from);
  while ((n = fread(buf, 1, sizeof buf, from)) > 0)
    fwrite(buf, 1, n, to);
  fseek(from, 0, SEEK_END);
}

/* A directory an option writes into: made if missing (its parent must
 * exist); anything else there is refused before measuring. */
static void
need_dir(const char *opt, const char *dir)
{
  struct stat st;
  int exists = stat(dir, &st) == 0;

  if ((exists && !S_ISDIR(st.st_mode)) || (!exists && mkdir(dir, 0777) != 0)
      || access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "%s: %s: '%s' %s\n", prog, opt, dir,
            (exists && !S_ISDIR(st.st_mode)) || errno == EEXIST ? "exists and is not a directory"
                                                                : strerror(errno));
    exit(2);
  }
}

/* Options that contradict each other, and the directories they write. */
static void
check_args(struct settings *s)
{
  /* For tests of build systems: the macros run the engine, and can measure
   * a simulated machine through the environment. */
  if (!s->simulate && !s->replay && getenv("XRAY_SIMULATE") && *getenv("XRAY_SIMULATE"))
    s->simulate = getenv("XRAY_SIMULATE");
  if (s->simulate && s->replay)
    usage_error("%s", "--simulate and --replay name two machines: give one");
  if (s->record && (s->trace || s->replay))
    usage_error("%s", "--record writes its own trace: not with --trace or --replay");
  if (s->repeat && !s->record)
    usage_error("%s", "--repeat goes with --record");
  /* A recording must hold every point its probes take. */
  if (s->given && s->record)
    usage_error("%s", "--record measures everything its probes rest on: not with --given");
  if (getenv("XRAY_FSROOT") && *getenv("XRAY_FSROOT")) {
    struct stat st;
    if (stat(getenv("XRAY_FSROOT"), &st) != 0 || !S_ISDIR(st.st_mode)) {
      fprintf(stderr,
              "%s: XRAY_FSROOT='%s' is not a directory (a recorded /sys and /proc "
              "tree): set it to one, or unset it\n",
              prog, getenv("XRAY_FSROOT"));
      exit(2);
    }
  }
#ifndef XRAY__HAVE_CAIRO
  if (s->plot)
    usage_error("%s",
                "--plot: this xray was built without cairo; install libcairo2-dev (Debian) "
                "and run configure and make again");
#endif
  if (s->record)
    need_dir("--record", s->record);
  if (s->plot)
    need_dir("--plot", s->plot);
  if (s->given) {
    char err[600];
    if (xray_cli_given_read(s->given, &s->gv, &s->ngv, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", prog, err);
      exit(2);
    }
  }
}

/* The kinds of core of the machine the settings name (none for a
 * recording, which holds one kind); a bad spec ends here. */
static xray_kinds *
find_kinds(const struct settings *s)
{
  char err[640] = "";
  xray_kinds *k;

  if (s->replay || s->record) {
    if (s->kind > 1)
      usage_error("%s", "--kind: a recording holds one kind of core");
    return NULL;
  }
  if (!(k = xray_kinds_find(s->simulate, err, sizeof err))) {
    if (s->simulate)
      usage_error("invalid --simulate: %s", err);
    fprintf(stderr, "%s: %s\n", prog, err);
    exit(1);
  }
  if (s->kind > (long) xray_kinds_count(k)) {
    fprintf(stderr, "%s: --kind=%ld: this machine has %zu kind%s of core\n", prog, s->kind,
            xray_kinds_count(k), xray_kinds_count(k) > 1 ? "s" : "");
    xray_kinds_free(k);
    exit(2);
  }
  return k;
}

/* The machine the settings name (kind i of kinds, where there are kinds),
 * set up; a bad spec or option ends here. */
static xray_machine *
make_machine(const struct settings *s, xray_kinds *kinds, size_t i)
{
  char err[640] = "";
  xray_machine *m = kinds ? xray_kinds_machine(kinds, i, err, sizeof err)
      : s->simulate       ? xray_machine_simulated(s->simulate, err, sizeof err)
      : s->replay         ? xray_machine_replay(s->replay, err, sizeof err)
                          : xray_machine_real(err, sizeof err);

  if (!m) {
    if (s->simulate)
      usage_error("invalid --simulate: %s", err);
    if (s->replay)
      usage_error("invalid --replay: %s", err);
    fprintf(stderr, "%s: %s\n", prog, err);
    exit(1);
  }
  xray_machine_set_budget(m, s->budget);
  if (xray_machine_set_compiler(m, s->cc, s->cflags)) {
    fprintf(stderr, "%s: out of memory\n", prog);
    xray_machine_free(m);
    exit(1);
  }
  if ((s->ops && xray_machine_set_option(m, "ops", s->ops, err, sizeof err))
      || (s->types && xray_machine_set_option(m, "types", s->types, err, sizeof err))) {
    xray_machine_free(m);
    usage_error("invalid --%s", err);
  }
  if (xray_machine_set_kernel(m, s->kernel)) {
    fprintf(stderr, "%s: --kernel=machine-code: this ISA has no machine-code backend\n", prog);
    xray_machine_free(m);
    exit(2);
  }
  return m;
}

/* Which probe runs (and on which kind of core, where there are several),
 * on standard error where it is a terminal (a full run takes seconds); name
 * NULL clears the line. */
static const char *progress_kind = "";

static void
progress(const char *name, size_t i, size_t n)
{
  static int tty = -1;

  if (tty < 0)
    tty = isatty(STDERR_FILENO);
  if (!tty)
    return;
  if (name)
    fprintf(stderr, "\r%s: measuring %s%s (%zu of %zu)...\033[K", prog, name, progress_kind, i + 1,
            n);
  else
    fprintf(stderr, "\r\033[K");
}

/* The probes the settings select, run on m (a recording runs them several
 * times, so that the replay has the noise too: the results are those of
 * the last); own[i] says which values probe i set.  *rc becomes 1 if one
 * failed. */
static xray_report *
run_probes(const struct settings *s, xray_machine *m, struct xray_cli_owned *own, int *rc)
{
  xray_report *rep = NULL;
  size_t i;
  int run;

  for (run = 0; run < (s->record ? (s->repeat ? s->repeat : 3) : 1); run++) {
    xray_report_free(rep);
    if (!(rep = xray_report_new())) {
      fprintf(stderr, "%s: out of memory for the results\n", prog);
      exit(1);
    }
    for (i = 0; i < s->nsel; i++) {
      own[i].probe = s->sel[i]->name;
      own[i].first = xray_report_count(rep);
      progress(s->sel[i]->name, i, s->nsel);
      if (xray_probe_run(s->sel[i], m, rep) != 0) {
        progress(NULL, 0, 0);
        fprintf(stderr, "%s: probe %s failed\n", prog, s->sel[i]->name);
        *rc = 1;
      }
      own[i].last = xray_report_count(rep);
    }
    progress(NULL, 0, 0);
  }
  return rep;
}

/* The probes on m, kind first of kinds (or the one machine there is);
 * where the machine has several kinds of core and --kind names none, on
 * every other kind too, whose values follow with the suffix _KIND<n>. */
static xray_report *
measure_kinds(const struct settings *s, xray_kinds *kinds, xray_machine *m,
              struct xray_cli_owned *own, int *rc)
{
  struct xray_cli_owned scratch[16];
  size_t n = kinds ? xray_kinds_count(kinds) : 1, i, first = s->kind ? (size_t) s->kind - 1 : 0;
  xray_report *rep, *more[8] = { NULL };
  char label[64]; /* progress_kind, while the probes run */

  if (n > 1) {
    snprintf(label, sizeof label, " on %s cores", xray_kinds_name(kinds, first));
    progress_kind = label;
  }
  rep = run_probes(s, m, own, rc);
  /* Each kind's machine is made as the first was: every kind is
   * measured alike. */
  for (i = 0; n > 1 && !s->kind && i < n; i++) {
    xray_machine *mk;
    if (i == first) {
      more[i] = rep;
      continue;
    }
    mk = make_machine(s, kinds, i);
    snprintf(label, sizeof label, " on %s cores", xray_kinds_name(kinds, i));
    more[i] = run_probes(s, mk, scratch, rc);
    xray_machine_free(mk);
  }
  /* Kind 1 is the report itself when every kind is measured: its
   * values are copied before anything else is added to it. */
  for (i = 0; n > 1 && !s->kind && i < n; i++)
    if (more[i] && xray_report_add_kind(rep, more[i], i) != 0) {
      fprintf(stderr, "%s: too many values to report every kind of core\n", prog);
      *rc = 1;
    }
  if (n > 1 && xray_report_add_kinds(rep, kinds) != 0)
    *rc = 1;
  for (i = 0; i < n && i < 8; i++)
    if (more[i] != rep)
      xray_report_free(more[i]);
  progress_kind = "";
  return rep;
}

/* Every output is opened before anything is measured, so that a path
 * that cannot be written costs no measuring; a recording's files are
 * named in rpath. */
static void
open_outputs(struct settings *s, char rpath[3][4096])
{
  xray_cli_out_guard();
  if (s->record) {
    snprintf(rpath[0], 4096, "%s/points.csv", s->record);
    snprintf(rpath[1], 4096, "%s/machine", s->record);
    snprintf(rpath[2], 4096, "%s/cpuinfo", s->record);
    s->trace = rpath[0];
    xray_cli_out_open(XRAY_CLI_OUT_MACHINE, rpath[1]);
    xray_cli_out_open(XRAY_CLI_OUT_CPUINFO, rpath[2]);
  }
  if (s->trace)
    xray_cli_out_open(XRAY_CLI_OUT_TRACE, s->trace);
  xray_cli_out_open(XRAY_CLI_OUT_RESULTS, s->output);
}

/* The values --given read, to m (the kind measured first: the names
 * without _KIND are kind 1's, or the one kind's); a name xray does not
 * report ends here. */
static void
give(const struct settings *s, xray_machine *m)
{
  size_t i;

  for (i = 0; i < s->ngv; i++)
    if (xray_machine_give(m, s->gv[i].name, s->gv[i].value, !s->gv[i].unconfirmed)) {
      fprintf(stderr, "%s: --given: %s line %ld: %s is not a value xray reports\n", prog, s->given,
              s->gv[i].line, s->gv[i].name);
      xray_machine_free(m);
      exit(2);
    }
}

int
main(int argc, char **argv)
{
  struct settings s = {
    .fmt = XRAY_FORMAT_TEXT, .output = "-", .kernel = XRAY_KERNEL_AUTO, .budget = 2.0
  };
  struct xray_cli_owned own[16]; /* each probe's values in the report */
  FILE *plotf = NULL;
  xray_report *rep = NULL;
  char rpath[3][4096] = { "", "", "" }; /* a recording's files */
  xray_machine *m;
  xray_kinds *kinds;
  size_t first;
  int rc = 0;

#ifdef XRAY__WITH_ICSIM
  /* A command of its own: static I-cache simulation of a file (not in
   * the macros' engine, xray-probe, which builds this file alone). */
  if (argc > 1 && strcmp(argv[1], "icsim") == 0)
    return xray_cli_icsim(argc - 1, argv + 1, prog);
#endif
  /* Hardware events: a command of its own, in the engine too (for
   * AX_XRAY_EVENTS); its kernels' temporaries go as the probes' do. */
  if (argc > 1 && strcmp(argv[1], "counters") == 0) {
    xray_cli_out_guard();
    return xray_cli_counters(argc - 1, argv + 1, prog);
  }
  parse_args(argc, argv, &s);
  check_args(&s);

  open_outputs(&s, rpath);

  /* A plot reads the points back: they go to a file of its own, and on
   * to the trace where one is asked for too. */
  if (s.plot && !(plotf = tmpfile())) {
    fprintf(stderr, "%s: --plot: cannot make a temporary file: %s\n", prog, strerror(errno));
    exit(1);
  }
  kinds = find_kinds(&s);
  first = s.kind ? (size_t) s.kind - 1 : 0;
  m = make_machine(&s, kinds, first);
  give(&s, m);
  if (plotf || s.trace)
    xray_machine_set_trace(m, plotf ? plotf : xray_cli_out_file(XRAY_CLI_OUT_TRACE));
  rep = measure_kinds(&s, kinds, m, own, &rc);
  if (s.record
      && (xray_record_machine(xray_cli_out_file(XRAY_CLI_OUT_MACHINE), m, rep)
          || (s.simulate ? fprintf(xray_cli_out_file(XRAY_CLI_OUT_CPUINFO),
                                   "model name\t: simulated: %s\n", s.simulate)
                      < 0
                         : xray_record_cpuinfo(xray_cli_out_file(XRAY_CLI_OUT_CPUINFO)))))
    rc = 1;
  xray_machine_free(m);
  if (plotf && s.trace)
    copy_points(plotf, xray_cli_out_file(XRAY_CLI_OUT_TRACE));

  xray_report_write(rep, xray_cli_out_file(XRAY_CLI_OUT_RESULTS), s.fmt);
  if (xray_cli_out_commit(XRAY_CLI_OUT_MACHINE, rpath[1])
      | xray_cli_out_commit(XRAY_CLI_OUT_CPUINFO, rpath[2])
      | xray_cli_out_commit(XRAY_CLI_OUT_TRACE, s.trace ? s.trace : "")
      | xray_cli_out_commit(XRAY_CLI_OUT_RESULTS, s.output))
    rc = 1;
    /* The plots come last: the results are safe whatever happens to them. */
#ifdef XRAY__HAVE_CAIRO
  if (plotf) {
    static const struct xray_cli_files io = { plot_open, plot_commit };
    if (xray_cli_plot(s.plot, plotf, rep, own, s.nsel, &io))
      rc = 1;
    fclose(plotf);
  }
#endif
  xray_report_free(rep);
  xray_kinds_free(kinds);
  free(s.gv);
  return rc;
}
