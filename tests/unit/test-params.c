/* The table of values (src/machine/params.c) against the probes, xray(1) and
 * the macros: each probe reports exactly its entries, with their units;
 * each entry is documented in the man page and in its probe's macro. */
#include "xray-internal.h"
#include "../tap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The whole of file path, or NULL. */
static char *
slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;

  if (!f)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
      && (buf = malloc((size_t) n + 1))) {
    if (fread(buf, 1, (size_t) n, f) != (size_t) n) {
      free(buf);
      buf = NULL;
    } else
      buf[n] = 0;
  }
  fclose(f);
  return buf;
}

/* How a macro documents an entry: a family with level 2, or TYPE_OP. */
static void
documented_name(const char *name, char *out, size_t len)
{
  const char *lt = strchr(name, '<');

  if (!lt)
    snprintf(out, len, "%s", name);
  else if (strncmp(lt, "<n>", 3) == 0)
    snprintf(out, len, "%.*s2%s", (int) (lt - name), name, lt + 3);
  else
    snprintf(out, len, "%.*sTYPE_OP", (int) (lt - name), name);
}

/* Whether the man page has the entry: a name whole; a family as its
 * prefix before an italic placeholder, and its suffix. */
static int
in_man(const char *man, const char *name)
{
  const char *lt = strchr(name, '<'), *gt = strrchr(name, '>');
  char pre[64], post[64];

  if (!lt)
    return strstr(man, name) != NULL;
  snprintf(pre, sizeof pre, "%.*s\\fI", (int) (lt - name), name);
  snprintf(post, sizeof post, "%s\\fR", gt + 1);
  return strstr(man, pre) && (!gt[1] || strstr(man, post));
}

/* Whether the macro of probe documents name in its list of defines. */
static int
in_macro(const char *top, const char *probe, const char *name)
{
  char path[4096], want[80], *m4, *at;
  int found = 0;

  snprintf(path, sizeof path, "%s/m4/ax_xray_%s.m4", top,
           strcmp(probe, "freq") == 0 ? "cpu_freq" : probe);
  if (!(m4 = slurp(path)))
    return 0;
  documented_name(name, want, sizeof want);
  for (at = m4; !found && (at = strstr(at, want)); at += strlen(want)) {
    const char *line = at;
    while (line > m4 && line[-1] != '\n')
      line--;
    found = line[0] == '#' && strspn(line + 1, " ") + 1 == (size_t) (at - line)
        && (at[strlen(want)] == ' ' || at[strlen(want)] == '\n');
  }
  free(m4);
  return found;
}

/* The simulated machine every probe is checked on. */
static const char spec[] = "l1i=32K:8:64,l1d=32K:8:64,l2=512K:8:64,l3=8M:16:64,colour=4K,"
                           "tlb1=64:64:4K,tlb2=2048:8:4K,tsc=2500,cpus=4,smt=2";

/* The values probe p added to r from index from on are each an entry of
 * p with the entry's unit, and every plain entry of p is among them: 1, or
 * 0; the check's description in desc. */
static int
check_values(const xray_probe *p, const xray_report *r, size_t from, char *desc, size_t len)
{
  char bad[512] = "";
  size_t i, j, n = 0;

  for (i = from; i < r->n && n < sizeof bad; i++) {
    const struct xray__param *e = xray__param_find(r->v[i].name);
    if (!e || strcmp(e->probe, p->name) != 0 || strcmp(e->unit, r->v[i].unit) != 0)
      n += (size_t) snprintf(bad + n, sizeof bad - n, " %s (%s)", r->v[i].name,
                             e ? e->probe : "no entry");
  }
  for (i = 0; xray__param_at(i) && n < sizeof bad; i++) {
    const struct xray__param *e = xray__param_at(i);
    if (strcmp(e->probe, p->name) != 0 || strchr(e->name, '<'))
      continue;
    for (j = from; j < r->n && strcmp(r->v[j].name, e->name) != 0; j++)
      ;
    if (j == r->n)
      n += (size_t) snprintf(bad + n, sizeof bad - n, " %s (not reported)", e->name);
  }
  snprintf(desc, len, "probe %s: its %zu values are its entries, with their units%s%s", p->name,
           r->n - from, bad[0] ? ": wrong:" : "", bad);
  return r->n > from && !bad[0];
}

/* Probe p run on the simulated machine into r, after the values r holds
 * (as in a full run, where a probe reads what the ones before it
 * established): its check, as check_values. */
static int
check_probe_in(const xray_probe *p, xray_report *r, char *desc, size_t len)
{
  char err[256] = "";
  xray_machine *m = xray_machine_simulated(spec, err, sizeof err);
  size_t from = r->n;

  if (!m) {
    snprintf(desc, len, "probe %s: a simulated machine: %s", p->name, err);
    return 0;
  }
  xray_probe_run(p, m, r);
  xray_machine_free(m);
  return check_values(p, r, from, desc, len);
}

/* Every probe's check.  The dcache and caches probes first, here, into one
 * report; the others then side by side, each in a child of its own (some
 * take seconds on the simulated machine) with a copy of that report, so
 * that the bandwidth, sharing and interference probes take the levels
 * from it instead of measuring them again.  A child's TAP line comes back
 * through a pipe and is counted here, in the probes' order. */
static const char *const first[] = { "dcache", "caches" };
#define NFIRST (sizeof first / sizeof *first)

/* p's place in first[], or NFIRST. */
static size_t
first_of(const xray_probe *p)
{
  size_t k;

  for (k = 0; k < NFIRST && strcmp(p->name, first[k]) != 0; k++)
    ;
  return k;
}

static void
check_probes(size_t nprobes)
{
  static xray_report pre, r;
  char desc[NFIRST][1024];
  int *fd = calloc(nprobes, sizeof *fd), ok[NFIRST];
  size_t i, k;

  if (!fd) {
    tap_ok(0, "memory for %zu probes' checks", nprobes);
    return;
  }
  xray__report_init(&pre);
  for (k = 0; k < NFIRST; k++)
    ok[k] = check_probe_in(xray_probe_find(first[k]), &pre, desc[k], sizeof desc[k]);
  fflush(stdout);
  for (i = 0; i < nprobes; i++) {
    int pfd[2];
    pid_t pid;
    fd[i] = -1;
    if (first_of(xray_probe_at(i)) < NFIRST || pipe(pfd) != 0)
      continue;
    if ((pid = fork()) == 0) {
      char line[1024];
      close(pfd[0]);
      if (dup2(pfd[1], STDOUT_FILENO) < 0)
        _exit(1);
      tap_count = 0;
      r = pre;
      tap_ok(check_probe_in(xray_probe_at(i), &r, line, sizeof line), "%s", line);
      fflush(stdout);
      _exit(0);
    }
    close(pfd[1]);
    if (pid < 0)
      close(pfd[0]);
    else
      fd[i] = pfd[0];
  }
  for (i = 0; i < nprobes; i++) {
    char line[2048] = "";
    FILE *f = fd[i] >= 0 ? fdopen(fd[i], "r") : NULL;
    char *d = NULL;
    if ((k = first_of(xray_probe_at(i))) < NFIRST) {
      tap_ok(ok[k], "%s", desc[k]);
      continue;
    }
    if (f && fgets(line, sizeof line, f))
      d = strstr(line, " - ");
    if (d)
      d[strcspn(d, "\n")] = 0;
    if (d)
      tap_ok(strncmp(line, "ok ", 3) == 0, "%s", d + 3);
    else
      tap_ok(0, "probe %s: the process that checks it gave no result (it crashed?)",
             xray_probe_at(i)->name);
    if (f)
      fclose(f);
    else if (fd[i] >= 0)
      close(fd[i]);
  }
  while (wait(NULL) > 0)
    ;
  free(fd);
}

/* Whether name's row is what at level, with arg. */
static int
is(const char *name, enum xray__what what, int level, int arg)
{
  int l;
  const struct xray__param *p = xray__param_match(name, &l);

  return p && p->what == what && l == level && p->arg == arg;
}

/* Every row says what it is, and names give their level: the OS view and
 * the simulator's truth read nothing else. */
static void
check_match(size_t nparams)
{
  size_t i, none = 0;
  int l;

  for (i = 0; i < nparams; i++)
    none += xray__param_at(i)->what == 0;
  tap_ok(none == 0, "every row of params.c says what its value is (%zu do not)", none);
  tap_ok(is("XRAY_L1I_LINE", XRAY__W_CACHE_LINE, XRAY__LEVEL_INSN, 0)
             && is("XRAY_L1D_SIZE", XRAY__W_CACHE_SIZE, 1, 0)
             && is("XRAY_L3_ASSOC", XRAY__W_CACHE_ASSOC, 3, 0)
             && is("XRAY_L12_LATENCY", XRAY__W_CACHE_LATENCY, 12, 0)
             && is("XRAY_L2TLB_ENTRIES", XRAY__W_TLB_ENTRIES, 2, 0)
             && is("XRAY_NUM_VEC_REGS", XRAY__W_REGS, 0, 2)
             && is("XRAY_BW_L1_COPY_ALL", XRAY__W_BW, 1, XRAY__SK_COPY | XRAY__ALL_CORES)
             && is("XRAY_BW_MEM_WRITE_NT", XRAY__W_BW, XRAY__LEVEL_MEM, XRAY__SK_WRITE_NT),
         "names give their row's what, their level and arg");
  tap_ok(!xray__param_match("XRAY_L1_SIZE", &l) && !xray__param_match("XRAY_L0_SHARED_BY", &l)
             && xray__param_match("XRAY_L1_SHARED_BY", &l) && l == 1
             && !xray__param_match("XRAY_BW_L0_READ", &l),
         "a level below its family's least is none (the L1D's and L1I's rows are their own)");
}

int
main(void)
{
  const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
  char path[4096], *man;
  size_t i, nprobes = 0, nparams = 0;

  while (xray_probe_at(nprobes))
    nprobes++;
  while (xray__param_at(nparams))
    nparams++;
  tap_plan((int) (nprobes + 2 * nparams + 7));
  tap_ok(xray__param_find("XRAY_L3_ASSOC") == xray__param_find("XRAY_L2_ASSOC")
             && xray__param_find("XRAY_L1D_ASSOC") != xray__param_find("XRAY_L2_ASSOC")
             && xray__param_find("XRAY_LX_ASSOC") == NULL
             && xray__param_find("XRAY_L_ASSOC") == NULL,
         "levels: L2 and L3 share the family, L1D has its entry, LX and L are none");
  tap_ok(xray__param_find("XRAY_LAT___M256D_FMA") && xray__param_find("XRAY_II_LONG_ADD")
             && !xray__param_find("XRAY_LAT_") && !xray__param_find("XRAY_NO_SUCH"),
         "operations: any TYPE_OP, but not an empty one; an unknown name is none");
  check_match(nparams);
  {
    static xray_report r;
    xray_value *v;
    xray__report_init(&r);
    v = xray__report_param(&r, "XRAY_L4_LINE", "4", NULL);
    tap_ok(v && strcmp(v->desc, "L4 cache line size") == 0 && strcmp(v->unit, "bytes") == 0,
           "a family's description takes its level: '%s'", v ? v->desc : "");
    tap_ok(!xray__report_param(&r, "XRAY_BOGUS", NULL, NULL) && r.n == 1,
           "a name in no entry is not added");
  }
  check_probes(nprobes);
  snprintf(path, sizeof path, "%s/src/cli/xray.1", top);
  man = slurp(path);
  for (i = 0; i < nparams; i++) {
    const struct xray__param *e = xray__param_at(i);
    tap_ok(man && in_man(man, e->name), "xray(1) documents %s", e->name);
    tap_ok(in_macro(top, e->probe, e->name), "the macro of probe %s documents %s", e->probe,
           e->name);
  }
  free(man);
  return tap_done();
}
