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

/* Outputs.  A regular file, or a name not yet taken, is written to a
 * temporary file beside it and renamed into place on success, with the
 * mode (and, where xray may, the owner) of the file it replaces; the
 * temporaries go on every other exit path, signals included.  A symbolic
 * link is followed: its target is replaced so, and the link stays.
 * Anything else (a device such as /dev/null, a FIFO) is written through,
 * never replaced.  A path that cannot be written is refused before any
 * measuring. */
struct outfile {
  char *path, *tmp;             /* the file renamed over (a link's target); NULL: direct */
  FILE *f;
};
/* results, trace, recording's machine and cpuinfo, a plot's index and
 * the image being drawn */
static struct outfile outs[6];

static void
remove_temps(void)
{
  size_t i;

  for (i = 0; i < sizeof outs / sizeof *outs; i++)
    if (outs[i].tmp)
      unlink(outs[i].tmp);
}

static void
on_signal(int sig)
{
  remove_temps();
  xray_remove_temporaries();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Every signal whose default action ends the process: its temporaries go
 * first (and the compiler in flight), then it ends as the signal says. */
static void
catch_signals(void)
{
  static const int sigs[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGABRT,
    SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ,
#ifdef SIGVTALRM
    SIGVTALRM,
#endif
#ifdef SIGPROF
    SIGPROF,
#endif
#ifdef SIGPOLL
    SIGPOLL,
#endif
  };
  size_t i;

  for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    /* A signal ignored by whoever started xray (nohup) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
}

static void
out_refuse(const char *path, const char *why)
{
  fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, why);
  exit(2);
}

static FILE *
out_open(struct outfile *o, const char *path)
{
  struct stat st;
  char *target = NULL;
  mode_t mode;
  int fd, exists;

  if (strcmp(path, "-") == 0)
    return o->f = stdout;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !(target = realpath(path, NULL)))
    out_refuse(path, errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
  if (!target && !(target = strdup(path))) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  exists = stat(target, &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    out_refuse(path, "it is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    /* A device or FIFO: written through. */
    if (!(o->f = fopen(target, "w")))
      out_refuse(path, strerror(errno));
    free(target);
    return o->f;
  }
  o->path = target;
  if (!(o->tmp = malloc(strlen(target) + 16))) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  sprintf(o->tmp, "%s.tmpXXXXXX", target);
  /* mkstemp makes the file 0600: it gets the mode of the file it replaces,
   * or a new file's. */
  mode = umask(0);
  umask(mode);
  mode = exists ? st.st_mode & 07777 : 0666 & ~mode;
  if ((fd = mkstemp(o->tmp)) < 0) {
    free(o->tmp);
    o->tmp = NULL;
    out_refuse(path, errno == ENOENT ? "no such directory" : strerror(errno));
  }
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
    exit(1);
  }
  /* The owner too, where xray may give the file away (as root); else it
   * stays xray's. */
  if (exists && fchown(fd, st.st_uid, st.st_gid) != 0) {
  }
  return o->f;
}

/* 0, or -1 with a message: the output is complete and in place. */
static int
out_commit(struct outfile *o, const char *name)
{
  int bad;

  if (!o->f)
    return 0;
  if (o->f == stdout) {
    if (fflush(stdout) == 0 && !ferror(stdout))
      return 0;
    fprintf(stderr, "%s: cannot write the standard output: %s\n", prog, strerror(errno));
    return -1;
  }
  bad = ferror(o->f) | fclose(o->f);
  o->f = NULL;
  if (!bad && (!o->tmp || rename(o->tmp, o->path) == 0)) {
    free(o->tmp);
    o->tmp = NULL;
    return 0;
  }
  fprintf(stderr, "%s: cannot write '%s': %s\n", prog, name, strerror(errno ? errno : EIO));
  return -1;
}

/* 0, or 1 with a message if what went to the standard output was lost. */
static int
stdout_done(void)
{
  struct outfile o = { NULL, NULL, stdout };

  return out_commit(&o, "-") ? 1 : 0;
}

static void
usage(FILE *f)
{
  size_t i;
  const xray_probe *p;

  fprintf(f,
          "Usage: %s [OPTION]... [PROBE]...\n"
          "  or:  %s counters [OPTION]...     (hardware events; see --help there)\n"
#ifdef XRAY__WITH_ICSIM
          "  or:  %s icsim [OPTION]... FILE [FUNCTION]...\n"
#endif
          "Measure hardware parameters by timing generated micro-benchmarks\n"
          "(the X-Ray method).  With no PROBE, run every probe.\n"
          "\n"
          "  -f, --format=FORMAT   text (default), json, shell or header\n"
          "  -o, --output=FILE     write the results to FILE (replaced atomically)\n"
          "  -t, --trace=FILE      write every measured point as CSV\n"
          "                        (probe, kernel, x, cycles)\n"
          "      --record=DIR      record this machine for --replay: run the probes\n"
          "                        --repeat times (default 3), every point to DIR\n"
          "      --repeat=N        runs of the probes for --record (1 to 20)\n"
          "      --replay=DIR      answer the probes from the recording in DIR\n"
          "      --plot=DIR        draw every curve the probes measured into DIR: an\n"
          "                        SVG and a PNG a probe, and plots.txt (needs cairo)\n"
          "  -b, --budget=SECONDS  time one probe may spend (default 2)\n"
          "  -s, --simulate=SPEC   measure a simulated machine instead of this one;\n"
          "                        SPEC is a comma-separated list of items:\n"
          "                          l1i=SIZE:WAYS:LINE[:lru|plru|random]\n"
          "                          uop=OPS  penalty=CYCLES  noise=PERCENT\n"
          "                          spikes=PERCENT  seed=N\n"
          "                          l1d= l2= l3= l4=SIZE:WAYS:LINE  tlb1= tlb2=ENTRIES:WAYS:PAGE\n"
          "                          colour=PAGE  tenant=LEVEL:RATE[:SWING]\n"
          "                          clock=MHZ tsc=MHZ int=A:M:D fp=A:M:D:F regs=I:F:V\n"
          "                          fma=yes|no contract=yes|no cpus=N smt=K\n"
          "                          share1..share4=CPUS c2c=CYCLES adjline=BYTES\n"
          "                          branch=PENALTY[:HISTORY[:WINDOW]] bselect=yes|no\n"
          "                          pmu=SEED[:EVENTS] (see xray(1))\n"
          "                        SIZE takes K and M suffixes, e.g. l1i=48K:12:64\n"
          "  -k, --kernel=KIND     machine-code (x86-64), c (generated C compiled for\n"
          "                        each size: portable and slow), or auto (default:\n"
          "                        machine code where the ISA has it)\n"
          "      --cc=CC           compiler for C kernels (default: $CC, else cc)\n"
          "      --cflags=FLAGS    its flags (default: $CFLAGS, else -O2)\n"
          "      --ops=TYPE:OP,... operations for latency and throughput, e.g.\n"
          "                        double:*,long:+,__m256d:fma (OP: + - * / fma)\n"
          "      --types=TYPE,...  types for registers, e.g. long,double,__m256d\n"
          "  -l, --list            list the probes and exit\n"
          "  -h, --help            display this help and exit\n"
          "  -V, --version         output version information and exit\n"
          "\nProbes:\n",
          prog, prog
#ifdef XRAY__WITH_ICSIM
          ,
          prog
#endif
  );
  for (i = 0; (p = xray_probe_at(i)); i++)
    fprintf(f, "  %-10s %s\n", p->name, p->summary);
  fprintf(f,
          "\nValues measured on this machine are labelled 'measured'; the operating\n"
          "system's view is printed beside them and never replaces them.\n"
          "\nExit status: 0 on success, 1 if a probe failed, 2 on a usage error.\n");
}

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
  const char *plot;
  long repeat;
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

/* Option c's value arg into s; a bad value ends xray here (exit 2). */
static void
take_option(int c, char *arg, struct settings *s)
{
  char *end;

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
    errno = 0;
    s->budget = strtod(arg, &end);
    /* Decimal only: strtod also reads hexadecimal, "inf" and "nan". */
    if (errno || end == arg || *end || strspn(arg, "0123456789.eE+-") != strlen(arg)
        || !(s->budget > 0) || s->budget > 3600)
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
    errno = 0;
    s->repeat = strtol(arg, &end, 10);
    if (errno || end == arg || *end || s->repeat < 1 || s->repeat > 20)
      usage_error("invalid --repeat '%s' (a whole number from 1 to 20)", arg);
    break;
  case 'P':
    s->replay = nonempty(arg, "invalid --replay '%s' (a directory made by --record)");
    break;
  case 'G':
    s->plot = nonempty(arg, "invalid --plot '%s' (a directory)");
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
      exit(stdout_done());
    case 'h':
      usage(stdout);
      exit(stdout_done());
    case 'V':
      printf("xray %s\n", xray_version());
      exit(stdout_done());
    case '?':
      fprintf(stderr, "Try '%s --help' for more information.\n", prog);
      exit(2);
    default:
      take_option(c, optarg, s);
    }
  select_probes(argc, argv, s);
}

/* The plot's files go through out_open and out_commit as the results
 * do: replaced atomically, a device or FIFO written through. */
#ifdef XRAY__HAVE_CAIRO
static FILE *
plot_open(int which, const char *path)
{
  return out_open(&outs[4 + which], path);
}

static int
plot_commit(int which, const char *path)
{
  return out_commit(&outs[4 + which], path);
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
}

/* The machine the settings name, set up; a bad spec or option ends here. */
static xray_machine *
make_machine(const struct settings *s)
{
  char err[640] = "";
  xray_machine *m = s->simulate ? xray_machine_simulated(s->simulate, err, sizeof err)
                    : s->replay ? xray_machine_replay(s->replay, err, sizeof err)
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

/* Which probe runs, on standard error where it is a terminal (a full run
 * takes seconds); name NULL clears the line. */
static void
progress(const char *name, size_t i, size_t n)
{
  static int tty = -1;

  if (tty < 0)
    tty = isatty(STDERR_FILENO);
  if (!tty)
    return;
  if (name)
    fprintf(stderr, "\r%s: measuring %s (%zu of %zu)...\033[K", prog, name, i + 1, n);
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

int
main(int argc, char **argv)
{
  struct settings s = {
    XRAY_FORMAT_TEXT, "-", NULL,     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0,
    XRAY_KERNEL_AUTO, 2.0, { NULL }, 0
  };
  static struct xray_cli_owned own[16]; /* each probe's values in the report */
  FILE *plotf = NULL;
  xray_report *rep = NULL;
  static char rpath[3][4096];   /* a recording's files */
  xray_machine *m;
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
    catch_signals();
    atexit(remove_temps);
    return xray_cli_counters(argc - 1, argv + 1, prog);
  }
  parse_args(argc, argv, &s);
  check_args(&s);

  /* Every output is opened before anything is measured, so that a path
   * that cannot be written costs no measuring. */
  catch_signals();
  atexit(remove_temps);
  if (s.record) {
    snprintf(rpath[0], sizeof rpath[0], "%s/points.csv", s.record);
    snprintf(rpath[1], sizeof rpath[1], "%s/machine", s.record);
    snprintf(rpath[2], sizeof rpath[2], "%s/cpuinfo", s.record);
    s.trace = rpath[0];
    out_open(&outs[2], rpath[1]);
    out_open(&outs[3], rpath[2]);
  }
  if (s.trace)
    out_open(&outs[1], s.trace);
  out_open(&outs[0], s.output);

  /* A plot reads the points back: they go to a file of its own, and on
   * to the trace where one is asked for too. */
  if (s.plot && !(plotf = tmpfile())) {
    fprintf(stderr, "%s: --plot: cannot make a temporary file: %s\n", prog, strerror(errno));
    exit(1);
  }
  m = make_machine(&s);
  if (plotf || s.trace)
    xray_machine_set_trace(m, plotf ? plotf : outs[1].f);
  rep = run_probes(&s, m, own, &rc);
  if (s.record
      && (xray_record_machine(outs[2].f, m, rep)
          || (s.simulate ? fprintf(outs[3].f, "model name\t: simulated: %s\n", s.simulate) < 0
                         : xray_record_cpuinfo(outs[3].f))))
    rc = 1;
  xray_machine_free(m);
  if (plotf && s.trace)
    copy_points(plotf, outs[1].f);

  xray_report_write(rep, outs[0].f, s.fmt);
  if (out_commit(&outs[2], rpath[1]) | out_commit(&outs[3], rpath[2])
      | out_commit(&outs[1], s.trace ? s.trace : "") | out_commit(&outs[0], s.output))
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
  return rc;
}
