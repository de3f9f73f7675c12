/* Streaming kernels: read, write, copy and triad over arrays, and a write
 * with non-temporal stores, generated as C and compiled with the user's
 * compiler and flags, so that they load and store with the widest vectors
 * those flags offer (what the user's own loops can get), no wider.
 *
 * Every kernel is long long xray_stream_K(void *a, void *b, void *c,
 * size_t n, long reps): reps passes over arrays of n vectors, n a multiple
 * of 8 (XRAY__STREAM_UNIT).  The vectors are GNU C vector types (gcc and
 * clang): the width is what the flags' predefined macros allow, and the
 * loop is the same at every optimisation level.  An empty asm with a
 * memory clobber ends every unrolled step: no compiler turns a loop into
 * a memset or memcpy call through it (glibc's switch to non-temporal
 * stores above a size would change what is measured), and no pass of a
 * write is dead to the next (each pass writes a different value too).
 * What the integer kernels write reads as a normal double (1.0 plus a few
 * ulps, in every lane), and so does the arrays' first fill: a triad over
 * denormals would time the microcode assist some cores (Intel's) take for
 * each, not the memory. */
#include "kernels/kernels.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

const struct xray__skernel xray__skernels[XRAY__SK_N] = {
  { "read", 1, 1 },  { "write", 1, 0 },  { "copy", 2, 1 },  { "triad", 3, 2 }, { "write-nt", 1, 0 },
  { "read2", 1, 1 }, { "write2", 1, 0 }, { "copy2", 2, 1 }, { "triad2", 3, 2 },
};

static const char prologue[] =
    "/* xray's streaming kernels (generated) */\n"
    "#include <stddef.h>\n"
    "#if defined __AVX512F__\n#define XB 64\n#elif defined __AVX__\n#define XB 32\n"
    "#elif defined __SSE2__ || defined __ARM_NEON || defined __ALTIVEC__ || defined __VSX__\n"
    "#define XB 16\n#else\n#define XB 8\n#endif\n"
    "typedef long long xv __attribute__((vector_size(XB)));\n"
    "typedef double xd __attribute__((vector_size(XB)));\n"
    "#define STEP_END __asm__ __volatile__(\"\" ::: \"memory\")\n"
    "int xray_stream_width(void) { return XB; }\n";

/* The kernels' bodies: one unrolled step of four vectors at i (a twin
 * runs it at i and at i + 4). */
static const char *const body[XRAY__SK_BASE] = {
  "s0 += a[i]; s1 += a[i + 1]; s2 += a[i + 2]; s3 += a[i + 3];",
  "a[i] = v; a[i + 1] = v; a[i + 2] = v; a[i + 3] = v;",
  "b[i] = a[i]; b[i + 1] = a[i + 1]; b[i + 2] = a[i + 2]; b[i + 3] = a[i + 3];",
  "a[i] = b[i] + d * c[i]; a[i + 1] = b[i + 1] + d * c[i + 1]; "
  "a[i + 2] = b[i + 2] + d * c[i + 2]; a[i + 3] = b[i + 3] + d * c[i + 3];",
  "NT(a + i, v); NT(a + i + 1, v); NT(a + i + 2, v); NT(a + i + 3, v);",
};

/* Non-temporal stores of one vector where the ISA has them at these
 * flags; xray_stream_nt() says whether it does (the kernel then writes
 * plainly and is not used).  The store is the instruction itself, in
 * an asm of either syntax (AT&T and Intel, for -masm=intel), not an
 * intrinsic: <immintrin.h> alone costs gcc most of a second to read. */
static const char nt[] =
    "#if defined __x86_64__ || defined __i386__\n"
    "#if XB == 64\n#define NT_INSN \"vmovntdq\"\n#define NT_REG \"v\"\n"
    "#elif XB == 32 && defined __AVX__\n#define NT_INSN \"vmovntdq\"\n#define NT_REG \"x\"\n"
    "#elif XB == 16 && defined __SSE2__\n#define NT_INSN \"movntdq\"\n#define NT_REG \"x\"\n"
    "#endif\n#endif\n"
    "#ifdef NT_INSN\n"
    "#define NT(p, x) __asm__ __volatile__(NT_INSN \" {%1, %0|%0, %1}\" : \"=m\"(*(xv *) (p)) "
    ": NT_REG((xv) (x)))\n"
    "#define FENCE __asm__ __volatile__(\"sfence\" ::: \"memory\")\n"
    "int xray_stream_nt(void) { return 1; }\n"
    "#else\n#define NT(p, x) (*(p) = (x))\n#define FENCE\n"
    "int xray_stream_nt(void) { return 0; }\n#endif\n";

static int
gen_unit(FILE *f, const void *arg, char *err, size_t errlen)
{
  size_t k;

  (void) arg;
  (void) err;
  (void) errlen;
  xray__gen_quiet(f);
  fputs(prologue, f);
  fputs(nt, f);
  for (k = 0; k < XRAY__SK_N; k++) {
    size_t b = XRAY__SK_OF(k);
    int twin = k != b;
    fprintf(f,
            "\n/* %s */\nlong long\nxray_stream_%zu(void *pa, void *pb, void *pc, size_t n, "
            "long reps)\n{\n"
            "  xv *a = pa, *b = pb, s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 }, v = { 0 };\n"
            "  xd *ad = pa, *bd = pb, *cd = pc;\n  double d = 0.5;\n  long r;\n  size_t i;\n\n"
            "  (void) a;\n  (void) b;\n  (void) ad;\n  (void) bd;\n  (void) cd;\n  (void) d;\n"
            "  v += 0x3ff0000000000000LL;\n"
            "  for (r = 0; r < reps; r++) {\n    v += 1;\n"
            "    for (i = 0; i < n; i += %d) {\n%s      %s\n",
            xray__skernels[k].name, k, twin ? 8 : 4,
            b == XRAY__SK_TRIAD ? "#define a ad\n#define b bd\n#define c cd\n" : "", body[b]);
    if (twin)
      fprintf(f, "      i += 4;\n      %s\n      i -= 4;\n", body[b]);
    fprintf(f, "      STEP_END;\n    }\n%s  }\n  s0 += s1 + s2 + s3 + v;\n  return s0[0];\n}\n",
            b == XRAY__SK_TRIAD          ? "#undef a\n#undef b\n#undef c\n"
                : b == XRAY__SK_WRITE_NT ? "    FENCE;\n"
                                         : "");
  }
  return ferror(f) ? -1 : 0;
}

void
xray__stream_free(struct xray__stream_set *s)
{
  if (s->dl)
    dlclose(s->dl);
  memset(s, 0, sizeof *s);
}

int
xray__stream_build(struct xray__stream_set *s, const char *cc, const char *cflags, char *err,
                   size_t errlen)
{
  int (*width)(void), (*has_nt)(void);
  size_t k;

  xray__stream_free(s);
  if (xray__cc_load(gen_unit, NULL, cc, cflags, &s->dl, NULL, NULL, err, errlen))
    return -1;
  *(void **) &width = dlsym(s->dl, "xray_stream_width");
  *(void **) &has_nt = dlsym(s->dl, "xray_stream_nt");
  for (k = 0; k < XRAY__SK_N; k++) {
    char name[32];
    snprintf(name, sizeof name, "xray_stream_%zu", k);
    *(void **) &s->fn[k] = dlsym(s->dl, name);
    if (!s->fn[k] || !width || !has_nt) {
      snprintf(err, errlen, "the streaming kernels lack %s", name);
      xray__stream_free(s);
      return -1;
    }
  }
  s->width = width();
  s->nt = has_nt();
  return 0;
}
