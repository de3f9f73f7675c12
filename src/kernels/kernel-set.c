/* Kernel sets: many generated C kernels compiled together, with the user's
 * compiler and flags, into one shared object that is loaded into this
 * process and timed by the sampler like machine code.  One compile serves
 * a whole probe (a compile costs 0.1-1 s; one per kernel would cost more
 * than the measurements).
 *
 * The compiler's assembly output is kept for a static check: every
 * statement's barrier carries a comment "xray k_K sJ", so the code between
 * kernel K's first and last barrier is its timed loop, and operands that
 * address the stack there are spill traffic. */
#include "kernels/kernels.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
xray__kernel_set_free(struct xray__kernel_set *s)
{
  if (s->dl)
    dlclose(s->dl);
  free(s->k);
  memset(s, 0, sizeof *s);
}

/* Whether an assembly line is spill traffic: an instruction with a memory
 * operand (the kernels' loops touch no memory of their own: their
 * variables live in registers or nowhere), or a move between the integer
 * and the floating/vector register files (gcc parks doubles in integer
 * registers before it uses the stack).  AT&T and Intel x86, AArch64. */
static int
spill_line(const char *line)
{
  const char *p = line;
  int vec, gpr;

  while (*p == ' ' || *p == '\t')
    p++;
  if (!*p || *p == '.' || *p == '#' || *p == '/' || *p == '@' || strchr(p, ':'))
    return 0;                   /* directive, comment or label */
  if (strchr(p, '(') || strchr(p, '['))
    return 1;
  if (!strstr(p, "mov"))
    return 0;
  vec = strstr(p, "%xmm") || strstr(p, "%ymm") || strstr(p, "%zmm");
  gpr = strstr(p, "%r") || strstr(p, "%e");
  if (vec && gpr)
    return 1;
  /* AArch64: fmov between x/w and d/s/v registers. */
  return strncmp(p, "fmov", 4) == 0 && (strstr(p, " x") || strstr(p, " w"))
         && (strstr(p, " d") || strstr(p, " s") || strstr(p, " v"));
}

/* The loop's own branch, which ends the part after the last barrier. */
static int
branch_line(const char *line)
{
  const char *p = line;

  while (*p == ' ' || *p == '\t')
    p++;
  return *p == 'j' || strncmp(p, "b.", 2) == 0 || strncmp(p, "cbnz", 4) == 0
         || strncmp(p, "cbz", 3) == 0 || (p[0] == 'b' && (p[1] == ' ' || p[1] == '\t'));
}

/* Spill instructions per statement in each kernel's timed loop, from the
 * assembly: from the first barrier's marker to the loop's branch after the
 * last one (the loop counter needs a register too).  Only the kernels
 * whose markers the file at asm_path holds (a part of the set) are set;
 * the others keep their -1, as where the markers are missing (e.g.
 * -flto, or -S output that is not assembly). */
static void
static_check(struct xray__kernel_set *s, const char *asm_path)
{
  FILE *f = fopen(asm_path, "r");
  char line[1024];
  size_t i, cur = (size_t) -1;
  int *first, *last, *refs, pending = 0;

  first = calloc(s->n * 3, sizeof *first);
  if (!f || !first) {
    if (f)
      fclose(f);
    free(first);
    return;
  }
  last = first + s->n;
  refs = last + s->n;
  while (fgets(line, sizeof line, f)) {
    const char *m = strstr(line, "xray k_");
    size_t k;
    int j;

    if (m && sscanf(m, "xray k_%zu s%d", &k, &j) == 2 && k < s->n) {
      /* A second copy of the loop (peeled, versioned) is not counted. */
      if (first[k] && (cur != k || j <= last[k])) {
        cur = (size_t) -1;
        continue;
      }
      if (!first[k])
        first[k] = j;
      else
        refs[k] += pending;
      cur = k;
      last[k] = j;
      pending = 0;
    } else if (cur != (size_t) -1) {
      if (spill_line(line))
        pending++;          /* counted once the next marker or the branch closes it */
      if (branch_line(line)) {
        refs[cur] += pending;
        pending = 0;
        cur = (size_t) -1;
      }
    }
  }
  fclose(f);
  for (i = 0; i < s->n; i++)
    if (first[i] && last[i] > first[i])
      s->k[i].stack = (double) refs[i] / (double) (last[i] - first[i]);
  free(first);
}

/* The machine an ELF file is for (its header's e_machine), or -1 where
 * the file is not ELF. */
static int
elf_machine(const char *path)
{
  unsigned char h[20];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(h, 1, sizeof h, f) : 0;

  if (f)
    fclose(f);
  if (n < sizeof h || memcmp(h, "\177ELF", 4) != 0)
    return -1;
  return h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18]; /* EI_DATA: 2 big-endian */
}

static const char *
machine_name(int m)
{
  switch (m) {
  case 3: return "i386";
  case 8: return "MIPS";
  case 20: return "PowerPC";
  case 21: return "PowerPC64";
  case 22: return "s390";
  case 40: return "ARM";
  case 62: return "x86-64";
  case 183: return "AArch64";
  case 243: return "RISC-V";
  case 258: return "LoongArch";
  default: return "another instruction set";
  }
}

/* Where the kernels cc made are not for the machine xray runs on (a
 * cross-built xray run on its target with the build machine's cc), dlopen
 * says only that it cannot open them: say which instruction sets differ,
 * and what to give. */
static int
foreign_kernels(const char *so, const char *cc, char *err, size_t errlen)
{
  int k = elf_machine(so), self = elf_machine("/proc/self/exe");

  if (k < 0 || self < 0 || k == self)
    return 0;
  snprintf(err, errlen,
           "the kernels '%.60s' compiled are for %s (ELF machine %d), and this xray runs on "
           "%s (%d): give --cc (or CC) a compiler for %s",
           cc, machine_name(k), k, machine_name(self), self, machine_name(self));
  return 1;
}

/* Runs cmd[0..n-1] at once with their output in log[i]; on failure, why
 * with the first failed one's log's first line that names an error. */
static int
run_cmds(char **cmd, const char *const *log, int n, char *err, size_t errlen, const char *what)
{
  char line[160] = "", why[128];
  FILE *f;
  int bad = xray__run_shells(cmd, log, n, why, sizeof why), i;

  for (i = 0; i < n; i++)
    free(cmd[i]);
  if (bad == 0)
    return 0;
  if ((f = fopen(log[bad - 1], "r"))) {
    while (fgets(line, sizeof line, f))
      if (strstr(line, "error"))
        break;
    fclose(f);
    line[strcspn(line, "\n")] = 0;
  }
  snprintf(err, errlen, "%s failed (%s)%s%.150s", what, why, line[0] ? ": " : "", line);
  return -1;
}

/* The temporary files of a unit of at most two parts besides k.c (the
 * first part's source): the first part's assembly, the shared object,
 * the first part's log, and the second part's source, assembly and
 * log. */
static const char *const cc_names[XRAY__TMP_MORE] = { "k.s",  "k.so", "cc.log",
                                                      "k1.c", "k1.s", "cc1.log" };
#define CC_PARTS 2

int
xray__cc_load_parts(int (*gen)(FILE *f, const void *arg, char *err, size_t errlen),
                    const void *const *arg, int parts, const char *cc, const char *cflags,
                    void **dl, void (*check)(void *ctx, const char *asm_path), void *ctx, char *err,
                    size_t errlen)
{
  const char *path[XRAY__TMP_MORE], *src[CC_PARTS], *as[CC_PARTS], *log[CC_PARTS];
  char *qsrc[CC_PARTS] = { NULL }, *qasm[CC_PARTS] = { NULL }, *qso = NULL, *cmd[CC_PARTS];
  int rc = -1, p;

  *dl = NULL;
  if (parts < 1 || parts > CC_PARTS) {
    snprintf(err, errlen, "%d parts of kernels (1 to %d)", parts, CC_PARTS);
    return -1;
  }
  if (xray__tmp_open(&src[0], cc_names, path, err, errlen))
    return -1;
  as[0] = path[0];
  log[0] = path[2];
  src[1] = path[3];
  as[1] = path[4];
  log[1] = path[5];
  for (p = 0; p < parts; p++)
    if (xray__write_source(src[p], gen, arg[p], err, errlen))
      goto out;
  for (p = 0; p < parts; p++)
    if (!(qsrc[p] = xray__shell_word(src[p])) || !(qasm[p] = xray__shell_word(as[p]))) {
      snprintf(err, errlen, "out of memory");
      goto out;
    }
  if (!(qso = xray__shell_word(path[1]))) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  /* CC and CFLAGS are words for the shell, as in make.  The parts
   * compile side by side: nothing is timed meanwhile. */
  for (p = 0; p < parts; p++)
    cmd[p] = xray__strf("%s %s%s -fPIC -S -o %s %s", cc, cflags, xray__no_debug(cflags), qasm[p],
                        qsrc[p]);
  if (run_cmds(cmd, log, parts, err, errlen, "compiling the kernels"))
    goto out;
  /* Assembling and linking use some flags of CFLAGS and not others: no
   * warning there is the project's business. */
  cmd[0] = xray__strf("%s %s%s -Wno-error -fPIC -shared -o %s %s %s", cc, cflags,
                      xray__no_debug(cflags), qso, qasm[0], parts > 1 ? qasm[1] : "");
  if (run_cmds(cmd, log, 1, err, errlen, "linking the kernels"))
    goto out;
  if (!(*dl = dlopen(path[1], RTLD_NOW | RTLD_LOCAL))) {
    const char *e = dlerror();
    if (!foreign_kernels(path[1], cc, err, errlen))
      snprintf(err, errlen, "cannot load the kernels: %.150s", e ? e : "dlopen failed");
    goto out;
  }
  for (p = 0; check && p < parts; p++)
    check(ctx, as[p]);
  rc = 0;
out:
  for (p = 0; p < CC_PARTS; p++) {
    free(qsrc[p]);
    free(qasm[p]);
  }
  free(qso);
  xray__tmp_close();
  return rc;
}

int
xray__cc_load(int (*gen)(FILE *f, const void *arg, char *err, size_t errlen), const void *arg,
              const char *cc, const char *cflags, void **dl,
              void (*check)(void *ctx, const char *asm_path), void *ctx, char *err, size_t errlen)
{
  return xray__cc_load_parts(gen, &arg, 1, cc, cflags, dl, check, ctx, err, errlen);
}

/* Kernels part, part + parts, ... of c[0..n-1]: a part of the set. */
struct set_args {
  const struct xray_cspec *c;
  size_t n, part, parts;
};

static int
gen_set(FILE *f, const void *arg, char *err, size_t errlen)
{
  const struct set_args *a = arg;

  return xray__gen_kernel_set(f, a->c, a->n, a->part, a->parts, err, errlen);
}

static void
check_set(void *ctx, const char *asm_path)
{
  static_check(ctx, asm_path);
}

/* A set of this many kernels or more compiles in two parts where two
 * CPUs can take them: the large sets (throughput's, registers') take
 * most of a second at -O2; a small one would only pay for a second
 * compiler. */
#define SPLIT_KERNELS 8

int
xray__kernel_set_compile(struct xray__kernel_set *s, const struct xray_cspec *c, size_t n,
                         const char *cc, const char *cflags, char *err, size_t errlen)
{
  struct set_args gk[2];
  const void *arg[2] = { &gk[0], &gk[1] };
  size_t i;
  int p, parts = n >= SPLIT_KERNELS && xray__run_lanes() >= 2 ? 2 : 1;

  xray__kernel_set_free(s);
  if (!(s->k = calloc(n, sizeof *s->k))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  s->n = n;
  for (i = 0; i < n; i++)
    s->k[i].stack = -1;
  for (p = 0; p < parts; p++) {
    gk[p].c = c;
    gk[p].n = n;
    gk[p].part = (size_t) p;
    gk[p].parts = (size_t) parts;
  }
  if (xray__cc_load_parts(gen_set, arg, parts, cc, cflags, &s->dl, check_set, s, err, errlen)) {
    xray__kernel_set_free(s);
    return -1;
  }
  for (i = 0; i < n; i++) {
    char name[48];
    const int *avail;
    int stmts = 1;
    const char *p;

    snprintf(name, sizeof name, "xray_kernel_%zu", i);
    *(void **) &s->k[i].fn = dlsym(s->dl, name);
    snprintf(name, sizeof name, "xray_avail_%zu", i);
    avail = (const int *) dlsym(s->dl, name);
    if (!s->k[i].fn || !avail) {
      snprintf(err, errlen, "the kernels lack %s", name);
      xray__kernel_set_free(s);
      return -1;
    }
    s->k[i].avail = *avail;
    for (p = c[i].stmts; *p; p++)
      stmts += *p == '|';
    s->k[i].w = (c[i].unroll + stmts - 1) / stmts * stmts;
    if (s->k[i].avail)
      s->k[i].fn(-2);
  }
  return 0;
}
