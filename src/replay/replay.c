/* Recorded machines.  A recording is a directory of three files:
 *
 *   cpuinfo     the first processor's block of /proc/cpuinfo: which CPU it was;
 *   machine     clocks, page size, whether other tenants share it (a
 *               model of a machine has none; default yes), usable CPUs and
 *               the OS view, one item a line;
 *   points.csv  every point the probes measured, as --trace writes them
 *               (probe, kernel, x, cycles), over several runs.
 *
 * The replaying machine answers a probe's point from the points of the same
 * probe and kernel: one of the samples recorded at that x, in turn (so the
 * recorded noise comes back), or between the two nearest recorded x, on a
 * line in log x.  It answers nothing that was not recorded near enough:
 * such a point is NAN with the reason, as on a machine that cannot run it.
 * Every kernel label carries what, besides x, decides the time, so that a
 * point of one layout is never taken for another's (a conflict set's names
 * its pages and the probe's run, whose arena they were in). */
#include "machine/ops.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Neighbours farther apart than this are too far to interpolate between. */
#define MAX_GAP 1.5

struct point {
  const char *key;              /* "probe,kernel" */
  double x, y;
  size_t line;                  /* order within the recording */
};

struct os_item {
  char name[48], src[48];
  double v;
};

struct replay {
  struct xray_machine base;
  struct point *p;
  size_t n;
  unsigned *uses;               /* per point: samples of its x handed out */
  char **keys;
  size_t nkeys, capkeys;
  char **slot; /* keys by hash, open addressing: nslot, a power of two */
  size_t nslot;
  struct os_item *os;
  size_t nos;
  int cpu[XRAY__MAX_CPUS], ncpu;
  struct xray__bcount bcount; /* the branch kernels' check, passed when recorded */
};

/* A recording holds thousands of keys (each conflict set's is its own),
 * and every point of it, and every point a probe asks for, looks one up:
 * by hash, not by a walk through them all. */
static size_t
key_hash(const char *key)
{
  uint64_t h = XRAY__FNV_BASIS;

  for (; *key; key++)
    h = xray__fnv1a(h, (unsigned char) *key);
  return (size_t) h;
}

/* The slot of key in m->slot: where it is, or the empty one where it
 * would go. */
static size_t
key_slot(const struct replay *m, const char *key)
{
  size_t i = key_hash(key) & (m->nslot - 1);

  while (m->slot[i] && strcmp(m->slot[i], key) != 0)
    i = (i + 1) & (m->nslot - 1);
  return i;
}

/* The interned key, or NULL if the recording has none such. */
static const char *
key_find(const struct replay *m, const char *key)
{
  return m->nslot ? m->slot[key_slot(m, key)] : NULL;
}

/* The table at twice its size (at least 1024 slots), every key again. */
static int
key_grow(struct replay *m)
{
  size_t n = m->nslot ? 2 * m->nslot : 1024, i;
  char **s = calloc(n, sizeof *s);

  if (!s)
    return -1;
  free(m->slot);
  m->slot = s;
  m->nslot = n;
  for (i = 0; i < m->nkeys; i++)
    m->slot[key_slot(m, m->keys[i])] = m->keys[i];
  return 0;
}

static const char *
intern(struct replay *m, const char *key)
{
  const char *k = key_find(m, key);
  char **more;

  if (k)
    return k;
  if (m->nkeys == m->capkeys) {
    size_t cap = m->capkeys ? 2 * m->capkeys : 256;
    if (!(more = realloc(m->keys, cap * sizeof *more)))
      return NULL;
    m->keys = more;
    m->capkeys = cap;
  }
  if (!(m->keys[m->nkeys] = strdup(key)))
    return NULL;
  m->nkeys++;
  /* At most half full: a probe ends soon at an empty slot. */
  if (2 * m->nkeys > m->nslot)
    return key_grow(m) ? NULL : m->keys[m->nkeys - 1];
  m->slot[key_slot(m, key)] = m->keys[m->nkeys - 1];
  return m->keys[m->nkeys - 1];
}

static int
cmp_point(const void *a, const void *b)
{
  const struct point *p = a, *q = b;
  int c = strcmp(p->key, q->key);

  if (c)
    return c;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return p->line < q->line ? -1 : p->line > q->line;
}

/* One line of points.csv: probe and kernel up to the last two commas (a
 * kernel's statements may hold any other character). */
static int
parse_point(struct replay *m, char *line, size_t no, char *err, size_t errlen)
{
  char *y = strrchr(line, ','), *x, *end1, *end2;
  struct point pt;

  if (!y)
    goto bad;
  *y++ = 0;
  if (!(x = strrchr(line, ',')) || !strchr(line, ',') || strchr(line, ',') == x)
    goto bad;
  *x++ = 0;
  /* A point the machine could not measure: its trace line says nan. */
  if (strncmp(y, "nan", 3) == 0 || strncmp(y, "-nan", 4) == 0)
    return 0;
  pt.x = xray__decimal(x, &end1);
  pt.y = xray__decimal(y, &end2);
  if (end1 == x || *end1 || end2 == y || (*end2 && *end2 != '\n' && *end2 != '\r'))
    goto bad;
  pt.line = no;
  if (!(pt.key = intern(m, line))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  if (m->n % 1024 == 0) {
    struct point *p = realloc(m->p, (m->n + 1024) * sizeof *p);
    if (!p) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    m->p = p;
  }
  m->p[m->n++] = pt;
  return 0;
bad:
  snprintf(err, errlen, "points.csv line %zu: expected PROBE,KERNEL,X,CYCLES", no);
  return -1;
}

static int
parse_machine(struct replay *m, char *line, size_t no, char *err, size_t errlen)
{
  char key[32], a[64], b[64];
  int end = 0, k = sscanf(line, "%31s %63s %63s %n", key, a, b, &end);
  char *e = a;
  /* Not a number: -1, which every item below refuses. */
  double v = k >= 2 && (xray__decimal(a, &e), e != a && !*e) ? xray__decimal(a, &e) : -1;

  if (k <= 0 || key[0] == '#')
    return 0;
  if (strcmp(key, "tick_hz") == 0 && k == 2 && v >= 0)
    m->base.tick_hz = v;
  else if (strcmp(key, "core_hz") == 0 && k == 2 && v >= 0)
    m->base.core_hz = v;
  else if (strcmp(key, "tenants") == 0 && k == 2 && (v == 0 || v == 1))
    m->base.tenants = (int) v;
  else if (strcmp(key, "page") == 0 && k == 2 && v >= 512 && v <= 1 << 30
           && ((unsigned long) v & ((unsigned long) v - 1)) == 0)
    m->base.page = (size_t) v;
  else if (strcmp(key, "home") == 0 && k == 2 && v >= 0 && v <= 65535 && v == floor(v))
    m->base.home = (int) v;
  else if (strcmp(key, "cpus") == 0) {
    const char *s = line + strlen("cpus");
    char *next;
    long cpu;
    while (m->ncpu < XRAY__MAX_CPUS && (cpu = strtol(s, &next, 10), next != s)) {
      if (cpu < 0 || cpu > 65535) {
        snprintf(err, errlen, "machine line %zu: CPU %.20s is not 0 to 65535", no, s);
        return -1;
      }
      m->cpu[m->ncpu++] = (int) cpu;
      s = next;
    }
  } else if (strcmp(key, "os") == 0 && k == 3 && (xray__decimal(b, &e), e != b && !*e)) {
    struct os_item *o = realloc(m->os, (m->nos + 1) * sizeof *o);
    if (!o) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
    m->os = o;
    snprintf(o[m->nos].name, sizeof o->name, "%s", a);
    snprintf(o[m->nos].src, sizeof o->src, "%s", end && line[end] ? line + end : "os");
    o[m->nos++].v = xray__decimal(b, &e);
  } else if (strcmp(key, "xray") != 0) {
    snprintf(err, errlen,
             "machine line %zu: '%s' is not ITEM VALUE (tick_hz, core_hz, page, "
             "tenants, cpus, home, os)",
             no, line);
    return -1;
  }
  return 0;
}

static int
read_file(struct replay *m, const char *dir, const char *name,
          int (*each)(struct replay *, char *, size_t, char *, size_t), char *err,
          size_t errlen)
{
  char path[4096], line[8192];
  size_t no = 0;
  FILE *f;
  int rc = 0;

  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(f = fopen(path, "r"))) {
    snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    return -1;
  }
  while (rc == 0 && fgets(line, sizeof line, f)) {
    no++;
    line[strcspn(line, "\r\n")] = 0;
    if (no == 1 && each == parse_point && strncmp(line, "probe,", 6) == 0)
      continue;                 /* the header */
    if (line[0])
      rc = each(m, line, no, err, errlen);
  }
  if (rc == 0 && ferror(f)) {
    snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
    rc = -1;
  }
  fclose(f);
  return rc;
}

/* The next sample of the points at p[i]'s x: i up to the group's end. */
static double
sample(struct replay *m, size_t i)
{
  size_t e = i;

  while (e < m->n && m->p[e].key == m->p[i].key && m->p[e].x == m->p[i].x)
    e++;
  return m->p[i + m->uses[i]++ % (e - i)].y;
}

/* The recorded answer for the point at x of probe,kernel: a sample of it,
 * or between the two nearest recorded x (at most MAX_GAP apart); NAN,
 * with the reason, where the recording holds neither. */
static double
recorded_point(xray_machine *base, const char *probe, const char *kernel, double x)
{
  struct replay *m = (struct replay *) base;
  char key[512];
  const char *k;
  size_t lo, hi, i;

  snprintf(key, sizeof key, "%s,%s", probe, kernel);
  k = key_find(m, key);
  /* First point of the key at x or beyond. */
  lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(m->p[mid].key, key);
    if (c < 0 || (c == 0 && m->p[mid].x < x))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (k && lo < m->n && m->p[lo].key == k && fabs(m->p[lo].x - x) <= 1e-9 * fabs(x))
    return sample(m, lo);
  if (k && lo > 0 && lo < m->n && m->p[lo - 1].key == k && m->p[lo].key == k) {
    double x0 = m->p[lo - 1].x, x1 = m->p[lo].x;
    for (i = lo - 1; i > 0 && m->p[i - 1].key == k && m->p[i - 1].x == x0; i--)
      ;
    if (x0 > 0 && x1 / x0 <= MAX_GAP) {
      double a = sample(m, i), b = sample(m, lo), f = log(x / x0) / log(x1 / x0);
      return a + (b - a) * f;
    }
  }
  return xray__machine_fail(base, XRAY__FAIL_UNRECORDED, "the recording has no point of %s near %g",
                            key, x);
}

/* Every timing a probe asks for: the recorded point, with the ask's
 * outputs as the real machine's slots give them where a recording can
 * (the counter's rate; no compiled kernel's type is offered). */
static double
rp_lookup(xray_machine *base, const char *probe, const char *kernel, double x,
          const struct xray__ask *ask)
{
  if (ask->kind == XRAY__ASK_CLOCK)
    *ask->tsc_hz = base->tick_hz;
  if (ask->kind == XRAY__ASK_KTIME)
    *ask->avail = 0;
  return recorded_point(base, probe, kernel, x);
}

static int
rp_os_view(const xray_machine *base, const char *name, double *v, char *src, size_t srclen)
{
  const struct replay *m = (const struct replay *) base;
  size_t i;

  for (i = 0; i < m->nos; i++)
    if (strcmp(m->os[i].name, name) == 0) {
      *v = m->os[i].v;
      snprintf(src, srclen, "%s, recorded", m->os[i].src);
      return 0;
    }
  return -1;
}

static int
rp_kbuild(xray_machine *m, const struct xray_cspec *c, size_t n)
{
  (void) c, (void) n;
  snprintf(m->error, sizeof m->error,
           "a replay holds no compiled kernels (their code depends on the compiler)");
  return -1;
}

static int
rp_kinfo(xray_machine *m, size_t i, double *stack)
{
  (void) m, (void) i;
  *stack = -1;
  return 0;
}

/* Whether the recording holds points of probe,kernel. */
static int
recorded(const struct replay *m, const char *probe, const char *kernel)
{
  size_t i, lp = strlen(probe);

  for (i = 0; i < m->nkeys; i++)
    if (strncmp(m->keys[i], probe, lp) == 0 && m->keys[i][lp] == ','
        && (!kernel || strcmp(m->keys[i] + lp + 1, kernel) == 0))
      return 1;
  return 0;
}

/* The branch probe times its kernels only once their compiled loops
 * passed the static check (a branch, not a select), so a recording that
 * holds a kernel's points holds a kernel that passed it; its compiler's
 * code is what the points measured. */
static int
rp_bbuild(xray_machine *base)
{
  struct replay *m = (struct replay *) base;

  if (recorded(m, "branch", NULL)) {
    memset(&m->bcount, 0, sizeof m->bcount);
    m->bcount.ok = 1;
    return 0;
  }
  return rp_kbuild(base, NULL, 0);
}

static const struct xray__bcount *
rp_bcount(xray_machine *base, size_t k)
{
  struct replay *m = (struct replay *) base;

  return recorded(m, "branch", xray__bkernel_at(k)->name) ? &m->bcount : NULL;
}

static int
rp_sbuild(xray_machine *m, int *nt)
{
  *nt = 0;
  rp_kbuild(m, NULL, 0);
  return 0;
}

static int
rp_pmu(xray_machine *m)
{
  snprintf(m->error, sizeof m->error, "a recording holds no event counts");
  return -1;
}

static const char *
rp_event_at(xray_machine *m, size_t i)
{
  (void) m, (void) i;
  return NULL;
}

static double
rp_bevent(xray_machine *m, const char *name, size_t k, long size)
{
  (void) name, (void) k, (void) size;
  rp_pmu(m);
  return NAN;
}

static int
rp_cevents(xray_machine *m, const char *const *names, size_t n, const struct xray__chase *c,
           long loads, double *out)
{
  (void) names, (void) n, (void) c, (void) loads, (void) out;
  return rp_pmu(m);
}

static int
rp_cpus(xray_machine *base, int *cpu, int max)
{
  struct replay *m = (struct replay *) base;
  int i;

  for (i = 0; i < m->ncpu && i < max; i++)
    cpu[i] = m->cpu[i];
  return m->ncpu;
}

static void
rp_reset(xray_machine *m)
{
  (void) m;
}

static void
rp_free(xray_machine *base)
{
  struct replay *m = (struct replay *) base;
  size_t i;

  for (i = 0; i < m->nkeys; i++)
    free(m->keys[i]);
  free(m->keys);
  free(m->slot);
  free(m->p);
  free(m->uses);
  free(m->os);
  free(m);
}

static const struct xray__machine_ops replay_ops = {
  .kbuild = rp_kbuild,
  .kinfo = rp_kinfo,
  .bbuild = rp_bbuild,
  .bcount = rp_bcount,
  .sbuild = rp_sbuild,
  .pmu = rp_pmu,
  .event_at = rp_event_at,
  .bevent = rp_bevent,
  .cevents = rp_cevents,
  .cpus = rp_cpus,
  .reset = rp_reset,
  .free = rp_free,
  .os_view = rp_os_view,
  .lookup = rp_lookup,
};

xray_machine *
xray_machine_replay(const char *dir, char *err, size_t errlen)
{
  struct replay *m = calloc(1, sizeof *m);
  struct stat st;
  char name[128] = "";

  if (!m) {
    snprintf(err, errlen, "out of memory");
    return NULL;
  }
  m->base.ops = &replay_ops;
  m->base.hardware = m->base.tenants = 1;
  xray__machine_hardware_words(&m->base); /* a recording's points are the real backend's */
  m->base.budget = 2.0;
  m->base.page = 4096;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
    snprintf(err, errlen, "'%s' is not a directory made by --record", dir);
    goto fail;
  }
  if (read_file(m, dir, "machine", parse_machine, err, errlen)
      || read_file(m, dir, "points.csv", parse_point, err, errlen))
    goto fail;
  if (m->n == 0) {
    snprintf(err, errlen, "'%s/points.csv' holds no points", dir);
    goto fail;
  }
  if (!(m->uses = calloc(m->n, sizeof *m->uses))) {
    snprintf(err, errlen, "out of memory");
    goto fail;
  }
  qsort(m->p, m->n, sizeof *m->p, cmp_point);
  {
    char path[4096], line[256];
    FILE *f;
    snprintf(path, sizeof path, "%s/cpuinfo", dir);
    if ((f = fopen(path, "r"))) {
      while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0 && strchr(line, ':')) {
          snprintf(name, sizeof name, "%s", strchr(line, ':') + 2);
          name[strcspn(name, "\n")] = 0;
          break;
        }
      fclose(f);
    }
  }
  snprintf(m->base.desc, sizeof m->base.desc, "a replay of %s (%s%s%zu points)", dir, name,
           name[0] ? ", " : "", m->n);
  if (xray_machine_set_compiler(&m->base, NULL, NULL) == 0)
    return &m->base;
  snprintf(err, errlen, "out of memory");
fail:
  rp_free(&m->base);
  return NULL;
}
