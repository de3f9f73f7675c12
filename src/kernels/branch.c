/* Branch kernels: the Counter Inspection Toolkit's branch benchmarks
 * (Danalis et al., Fig. 9 and Fig. 11), generated as C, compiled with the
 * user's compiler and flags, loaded into this process, and checked from
 * the compiler's assembly: what a loop iteration executes is what the
 * compiled code says, not what the C text suggests (the paper's Sec. 3.1:
 * compilers add, remove and move branches).
 *
 * Every kernel is a function long xray_branch_K(long size, long lim) whose
 * loop body starts with the marker "xray b_K loop" and whose if-block (if
 * any) starts with "xray b_K then".  Markers are empty volatile asm
 * statements: the compiler keeps them once each, in place, and cannot
 * execute the block that holds one unconditionally, so an if stays a
 * branch unless the compiler turns the rest of its block into a select,
 * which the check finds. */
#include "kernels/kernels.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The penalty kernels draw a fair bit from a 64-bit LCG for the first
 * lim iterations and use 0 after them.  The bit is bit 32 of the LCG's
 * value after its last xor-shift: that step sets it (a right shift by s
 * changes bits 0 to 63 - s; the last steps shift by 31 and 30) and folds
 * one of the LCG's top bits, which are fair, into it.  A bit the last
 * step leaves alone lets a compiler test the value before that step
 * (clang -O2 does), and the branch then resolves ahead of the chain and
 * hides part of its penalty.  The if tests the LCG's value and the LCG's
 * next step follows the if-block, so the first instructions a
 * misprediction refetches are the chain's own: with the step at the
 * loop's top, every misprediction also pays for fetching past the loop's
 * back edge, a taken branch, which is no part of the penalty.  The gate
 * passes an opaque barrier before it is shifted into place (gcc -O0
 * compiles (cond) << k as a branch, clang -O2 a mask test as a select).
 *
 * The paper's figures draw with random_number(result), here xorshift64*
 * (branch-free).  The globals are volatile as in the paper's code: every
 * += stays a memory update, which no compiler may make conditional-free.
 * LIKELY lays the if-block out inline after its test, as the paper's
 * figures have it: without it clang -O2 rotates the loop and moves the
 * block below it, ending it with a jump back (a direct branch Table 1
 * does not count, and one more fetch after a misprediction).  The goto of
 * (f) is the one jump Table 1 counts, so its if stays unweighted; (a)'s
 * bound is made opaque so that no compiler splits the loop at it (gcc
 * -O3). */

/* The penalty kernels' if, and their chain: one step of an LCG and three
 * xor-shifts (10 cycles where a multiply takes 3 and the rest 1; the
 * long kernel adds two more, 14), each step kept in a general register
 * (gcc -Os moves a chain of shifts into vector registers, and a
 * misprediction then costs a vector unit's restart). */
#define PENALTY_IF                                                                                 \
  "b = temp < lim;\n    OPAQUE(b);\n    b <<= 32;\n"                                               \
  "    if (LIKELY(r & b)) {\n      THEN;\n      acc += temp;\n    }\n"
#define STEP(s) "    " s ";\n    OPAQUE(r);\n"
#define PENALTY_CHAIN                                                                              \
  STEP("r = r * 6364136223846793005ULL + 1442695040888963407ULL")                                  \
  STEP("r ^= r >> 29") STEP("r ^= r << 17") STEP("r ^= r >> 31")

static const struct xray__bkernel kernels[XRAY__BK_N] = {
  { "penalty",
    "a fair random bit in the first lim iterations, 0 after them; if-then",
    0.5,
    -1,
    { NAN, NAN, NAN, NAN, NAN },
    PENALTY_IF PENALTY_CHAIN "    temp++;\n" },
  { "penalty-long",
    "the same, the bit at the end of a longer dependent chain",
    0.5,
    -1,
    { NAN, NAN, NAN, NAN, NAN },
    PENALTY_IF PENALTY_CHAIN STEP("r ^= r << 13") STEP("r ^= r >> 30") "    temp++;\n" },
  { "cit-a",
    "if (temp < size/2): true in the first half",
    0.5,
    0,
    { 2, 2, 1.5, 0, 0 },
    "OPAQUE(half);\n    if (LIKELY(temp < half)) {\n      THEN;\n      xray_g2 += 2;\n    }\n"
    "    random_number(result);\n    temp++;\n" },
  { "cit-b",
    "if (temp < g2), g2 += 2 each time: always true",
    1,
    0,
    { 2, 2, 1, 0, 0 },
    "xray_g2 += 2;\n    if (LIKELY(temp < xray_g2)) {\n      THEN;\n      xray_g1 += 2;\n    }\n"
    "    random_number(result);\n    temp++;\n" },
  { "cit-c",
    "if (temp > g2), g2 += 2 each time: never true",
    0,
    0,
    { 2, 2, 2, 0, 0 },
    "xray_g2 += 2;\n    if (LIKELY(temp > xray_g2)) {\n      THEN;\n      xray_g1 += 2;\n    }\n"
    "    random_number(result);\n    temp++;\n" },
  { "cit-d",
    "if on a random bit, then more work before the loop branch",
    0.5,
    0.5,
    { 2, 2, 1.5, 0, 0.5 },
    "random_number(result);\n    xray_g2 += 2;\n    if (LIKELY((result % 2) == 0)) {\n      THEN;\n"
    "      xray_g1 += 2;\n    }\n    random_number(result);\n    temp++;\n" },
  { "cit-e",
    "if on a random bit, the loop branch right after it",
    0.5,
    0.5,
    { 2.5, 2, 1.5, 0, 0.5 },
    "random_number(result);\n    xray_g2 += 2;\n    if (LIKELY((result % 2) == 0)) {\n      THEN;\n"
    "      xray_g1 += 2;\n    }\n    temp++;\n" },
  { "cit-f",
    "an always-true if whose block ends in a goto",
    1,
    0,
    { 2, 2, 1, 1, 0 },
    "xray_g2 += 2;\n    if (temp < xray_g2) {\n      THEN;\n      xray_g1 += 2;\n      goto zz;\n"
    "    }\n    random_number(result);\n  zz:\n    temp++;\n    random_number(result);\n" },
  { "cit-g",
    "no if: the loop branch alone",
    0,
    0,
    { 1, 1, 1, 0, 0 },
    "xray_g2 += 2;\n    temp++;\n" },
};

const struct xray__bkernel *
xray__bkernel_at(size_t i)
{
  return i < XRAY__BK_N ? &kernels[i] : NULL;
}

static int
gen_unit(FILE *f, const void *arg, char *err, size_t errlen)
{
  size_t k;

  (void) arg;
  (void) err;
  (void) errlen;
  xray__gen_quiet(f);
  fprintf(f,
          "/* xray's branch kernels (generated) */\n"
          "#if defined(__aarch64__) || defined(__arm__)\n#define XRAY__MARK(s) \"// xray \" s\n"
          "#else\n#define XRAY__MARK(s) \"# xray \" s\n#endif\n"
          "#define OPAQUE(x) __asm__(\"\" : \"+r\"(x))\n"
          "#define LIKELY(x) __builtin_expect(!!(x), 1)\n"
          "#define random_number(result) (r ^= r >> 12, r ^= r << 25, r ^= r >> 27, "
          "(result) = (r * 0x2545F4914F6CDD1DULL) >> 32)\n"
          "volatile long xray_g1, xray_g2;\n"
          "volatile unsigned long xray_seed = 88172645463325252ULL;\n");
  for (k = 0; k < XRAY__BK_N; k++)
    fprintf(f,
            "\n/* %s: %s */\n#define THEN __asm__ __volatile__(XRAY__MARK(\"b_%zu then\"))\n"
            "#define ELSE __asm__ __volatile__(XRAY__MARK(\"b_%zu else\"))\n"
            "__attribute__((noinline, aligned(64))) long\nxray_branch_%zu(long size, long lim)\n{\n"
            "  unsigned long r = xray_seed, b, result = 0;\n  long temp = 0, acc = 0, on, half = "
            "size / 2;\n\n"
            "  (void) b;\n  (void) on;\n  (void) half;\n  (void) lim;\n  (void) result;\n"
            "  xray_g1 = 0;\n  xray_g2 = 0;\n  do {\n"
            "    __asm__ __volatile__(XRAY__MARK(\"b_%zu loop\"));\n    %s"
            "  } while (temp < size);\n  xray_seed = r;\n  return acc;\n}\n"
            "#undef THEN\n#undef ELSE\n",
            kernels[k].name, kernels[k].desc, k, k, k, k, kernels[k].body);
  return ferror(f) ? -1 : 0;
}

/* --- the static check --------------------------------------------------- */

enum item_kind { IT_INSN, IT_COND, IT_JUMP, IT_EXIT, IT_SELECT, IT_LABEL, IT_LOOP, IT_THEN };

/* What a path counts: cond, taken, direct, insns, loads (struct
 * xray__bcount's first fields, in order). */
#define NCOUNT 5

struct item {
  enum item_kind kind;
  int load; /* reads memory */
  char label[48]; /* a label's name, or a branch's target */
  long target; /* index of the target label, -1: outside the function */
};

static const char *
skip_space(const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* The instruction's mnemonic as a class: x86 (AT&T or Intel syntax) and
 * AArch64.  Calls are ordinary instructions: the kernels make none, and
 * a call to a helper returns to the next one. */
static enum item_kind
classify(const char *mn)
{
  static const char *const selects[] = { "cmov",    "csel",     "csinc",   "csinv",    "csneg",
                                         "fcsel",   "blendv",   "vblendv", "vpblendv", "vpblendm",
                                         "vblendm", "pblendvb", "vpcmov",  NULL };
  size_t i;

  if (strcmp(mn, "ret") == 0 || strcmp(mn, "retq") == 0 || strcmp(mn, "br") == 0)
    return IT_EXIT;
  if (strcmp(mn, "jmp") == 0 || strcmp(mn, "jmpq") == 0 || strcmp(mn, "b") == 0)
    return IT_JUMP;
  if ((mn[0] == 'j' && strcmp(mn, "jmp")) || strncmp(mn, "b.", 2) == 0 || strcmp(mn, "cbz") == 0
      || strcmp(mn, "cbnz") == 0 || strcmp(mn, "tbz") == 0 || strcmp(mn, "tbnz") == 0)
    return IT_COND;
  for (i = 0; selects[i]; i++)
    if (strncmp(mn, selects[i], strlen(selects[i])) == 0)
      return IT_SELECT;
  return IT_INSN;
}

/* Whether an instruction reads memory: AArch64 loads (ld...); x86 (AT&T)
 * instructions with a memory operand other than the destination of a
 * plain move (lea, nops and prefetches address memory without reading
 * it into the loop's data). */
static int
reads_memory(const char *mn, const char *ops)
{
  const char *paren = strchr(ops, '('), *comma = strrchr(ops, ',');

  if (strncmp(mn, "ld", 2) == 0)
    return 1;
  if (!paren || strncmp(mn, "lea", 3) == 0 || strncmp(mn, "nop", 3) == 0
      || strncmp(mn, "prefetch", 8) == 0)
    return 0;
  /* A move whose only memory operand is its destination is a store. */
  return !(strncmp(mn, "mov", 3) == 0 && comma && paren > comma);
}

/* One assembly line as an item of function k; 0 if it is none (a
 * directive, a comment, a blank). */
static int
parse_line(const char *line, size_t k, struct item *it)
{
  const char *p = skip_space(line), *m;
  char mn[24], tag[32];
  size_t n;

  memset(it, 0, sizeof *it);
  it->target = -1;
  if ((m = strstr(p, "xray b_"))) {
    size_t mk;
    if (sscanf(m, "xray b_%zu %31s", &mk, tag) == 2 && mk == k
        && (strcmp(tag, "loop") == 0 || strcmp(tag, "then") == 0)) {
      it->kind = tag[0] == 'l' ? IT_LOOP : IT_THEN;
      return 1;
    }
    return 0;
  }
  if (!*p || *p == '#' || *p == '.' || *p == '/' || *p == ';' || *p == '@' || *p == '\n') {
    /* A local label (".L5:", ".LBB1_3:") is a label, not a directive. */
    if (*p != '.')
      return 0;
  }
  n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$");
  if (n > 0 && p[n] == ':') {
    it->kind = IT_LABEL;
    snprintf(it->label, sizeof it->label, "%.*s", (int) (n < 47 ? n : 47), p);
    return 1;
  }
  if (*p == '.')
    return 0;
  if (sscanf(p, "%23s", mn) != 1)
    return 0;
  it->kind = classify(mn);
  it->load = reads_memory(mn, p + strlen(mn));
  if (it->kind == IT_COND || it->kind == IT_JUMP) {
    /* The target is the last operand (tbz x0, #3, .L5). */
    const char *t = strrchr(p, ',');
    char *e;
    t = skip_space(t ? t + 1 : p + strlen(mn));
    if (*t == '*' || (it->kind == IT_JUMP && *t == '%')) {
      it->kind = IT_EXIT; /* an indirect jump: where it goes is not in the text */
      return 1;
    }
    snprintf(it->label, sizeof it->label, "%s", t);
    for (e = it->label; *e && !isspace((unsigned char) *e) && *e != '#' && *e != '/'; e++)
      ;
    *e = 0;
  }
  return 1;
}

struct walk {
  const struct item *it;
  size_t n;
  double p_then;
  long steps;
  int paths[2]; /* paths found per class (0 else, 1 then) */
  double cnt[2][NCOUNT]; /* cond, taken, direct, insns, loads of the first path per class */
  int differ, selects, overflow;
};

/* Every path from item i (after the loop marker) to the next loop marker:
 * one iteration each.  cur: cond, taken, direct, insns so far. */
static void
walk_from(struct walk *w, size_t i, const double *cur0, int then, int depth)
{
  double cur[NCOUNT];

  memcpy(cur, cur0, sizeof cur);
  for (; i < w->n; i++) {
    const struct item *it = &w->it[i];
    if (++w->steps > 200000 || depth > 64) {
      w->overflow = 1;
      return;
    }
    switch (it->kind) {
    case IT_LOOP: {
      int c = then;
      if (w->paths[c]++ == 0)
        memcpy(w->cnt[c], cur, sizeof cur);
      else if (memcmp(w->cnt[c], cur, sizeof cur) != 0)
        w->differ = 1;
      return;
    }
    case IT_THEN:
      then = 1;
      break;
    case IT_LABEL:
      break;
    case IT_SELECT:
      w->selects++;
      cur[3]++;
      break;
    case IT_INSN:
      cur[3]++;
      cur[4] += it->load;
      break;
    case IT_EXIT:
      return; /* the loop ends here: not an iteration */
    case IT_JUMP:
      cur[2]++;
      cur[3]++;
      if (it->target < 0)
        return;
      i = (size_t) it->target;
      break;
    case IT_COND: {
      double taken[NCOUNT];
      cur[0]++;
      cur[3]++;
      memcpy(taken, cur, sizeof taken);
      taken[1]++;
      if (it->target >= 0)
        walk_from(w, (size_t) it->target, taken, then, depth + 1);
      break;
    }
    }
  }
}

/* The per-iteration counts of kernel k from its function's items. */
static void
count_items(const struct item *it, size_t n, const struct xray__bkernel *bk,
            struct xray__bcount *out)
{
  struct walk w;
  double zero[NCOUNT] = { 0, 0, 0, 0, 0 };
  size_t i, j, loops = 0, start = 0;
  int c;

  memset(out, 0, sizeof *out);
  for (i = 0; i < n; i++)
    if (it[i].kind == IT_LOOP) {
      loops++;
      start = i;
    }
  if (loops != 1) {
    snprintf(out->why, sizeof out->why,
             loops ? "the loop is copied (%zu copies)" : "the loop marker is missing", loops);
    return;
  }
  memset(&w, 0, sizeof w);
  w.it = it;
  w.n = n;
  w.p_then = bk->p_then;
  walk_from(&w, start + 1, zero, 0, 0);
  out->selects = w.selects;
  if (w.overflow || w.differ) {
    snprintf(out->why, sizeof out->why, "%s",
             w.overflow ? "the loop's paths are too many" : "paths of the same outcome differ");
    return;
  }
  for (c = 0; c < 2; c++) {
    double p = c ? bk->p_then : 1 - bk->p_then;
    if (p > 0 && !w.paths[c]) {
      snprintf(out->why, sizeof out->why, "the compiled loop has no path %s the if-block",
               c ? "through" : "around");
      return;
    }
    for (j = 0; j < NCOUNT; j++)
      (&out->cond)[j] += p * (w.paths[c] ? w.cnt[c][j] : 0);
  }
  out->ok = 1;
}

int
xray__branch_count_asm(FILE *f, size_t k, struct xray__bcount *out)
{
  char line[512], fn[40];
  struct item *it = NULL, *grow;
  size_t n = 0, cap = 0, i, j;
  int in = 0;

  snprintf(fn, sizeof fn, "xray_branch_%zu:", k);
  while (fgets(line, sizeof line, f)) {
    const char *p = skip_space(line);
    if (!in) {
      in = strncmp(p, fn, strlen(fn)) == 0;
      continue;
    }
    if (strstr(p, ".size") || strstr(p, ".cfi_endproc") || strstr(p, ".Lfunc_end")
        || strncmp(p, "xray_branch_", 12) == 0)
      break;
    if (n == cap) {
      cap = cap ? 2 * cap : 256;
      if (!(grow = realloc(it, cap * sizeof *it))) {
        free(it);
        snprintf(out->why, sizeof out->why, "out of memory");
        return -1;
      }
      it = grow;
    }
    n += (size_t) parse_line(line, k, &it[n]);
  }
  for (i = 0; i < n; i++)
    if (it[i].kind == IT_COND || it[i].kind == IT_JUMP)
      for (j = 0; j < n; j++)
        if (it[j].kind == IT_LABEL && strcmp(it[j].label, it[i].label) == 0)
          it[i].target = (long) j;
  if (!in) {
    memset(out, 0, sizeof *out);
    snprintf(out->why, sizeof out->why, "xray_branch_%zu is not in the assembly", k);
  } else
    count_items(it, n, &kernels[k], out);
  free(it);
  return out->ok ? 0 : -1;
}

static void
check_asm(void *ctx, const char *asm_path)
{
  struct xray__branch_set *s = ctx;
  size_t k;

  for (k = 0; k < XRAY__BK_N; k++) {
    FILE *f = fopen(asm_path, "r");
    if (!f) {
      snprintf(s->count[k].why, sizeof s->count[k].why, "cannot read the assembly");
      continue;
    }
    xray__branch_count_asm(f, k, &s->count[k]);
    fclose(f);
  }
}

void
xray__branch_free(struct xray__branch_set *s)
{
  if (s->dl)
    dlclose(s->dl);
  memset(s, 0, sizeof *s);
}

int
xray__branch_build(struct xray__branch_set *s, const char *cc, const char *cflags, char *err,
                   size_t errlen)
{
  size_t k;

  xray__branch_free(s);
  if (xray__cc_load(gen_unit, NULL, cc, cflags, &s->dl, check_asm, s, err, errlen))
    return -1;
  for (k = 0; k < XRAY__BK_N; k++) {
    char name[32];
    snprintf(name, sizeof name, "xray_branch_%zu", k);
    *(void **) &s->fn[k] = dlsym(s->dl, name);
    if (!s->fn[k]) {
      snprintf(err, errlen, "the branch kernels lack %s", name);
      xray__branch_free(s);
      return -1;
    }
  }
  return 0;
}
