/* kernels/: leaves that make kernels: x86-64 machine code, generated C,
 * kernel sets compiled at once, the commands that compile them. */
#ifndef XRAY__KERNELS_H
#define XRAY__KERNELS_H

#include "xray.h"
#include "isa/compiler.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* kernels/machine-code.c: statements the machine-code backend can emit. */
struct xray_stmt {
  const char *name;
  const char *desc;
  unsigned len; /* code bytes */
  unsigned ops; /* instructions */
  unsigned jumps; /* taken jumps (each ends an op-cache entry) */
  unsigned char bytes[32];
  const char *asm_text; /* the same instruction(s) for GNU as */
};

/* The loop control after the body: dec, jz, jmp (8 bytes, 3 instructions). */
#define XRAY__LOOP_TAIL_BYTES 8
#define XRAY__LOOP_TAIL_OPS 3

struct xray__machine_code {
  void *mem;
  size_t maplen;
  unsigned char *end; /* address of the loop tail; a chain's first piece */
  size_t nmax;
  const struct xray_stmt *stmt;
};

/* One piece of a chain: len bytes of statements (whole ones) at byte
 * offset off of the chain's buffer, then a jump to the next piece. */
struct xray__piece {
  uint64_t off;
  uint32_t len;
};

/* How a piece leaves for the next.  A jump (JUMP: 5 bytes, or in the last
 * piece the loop control, dec, jnz, ret: 10) is predicted, so the front
 * end fetches the next piece before it is needed and hides what a miss
 * costs.  A return (RETURN: 24 bytes, 30 in the last piece) whose return
 * address was overwritten with the next piece's is predicted to a capture
 * loop in its own piece (the construct of retpolines): the next piece is
 * fetched only once the return resolves, so that a piece's fetch costs
 * its whole latency, as a load's does in a pointer chase, while the
 * wrong path touches no other line. */
enum xray__link { XRAY__LINK_JUMP, XRAY__LINK_RETURN };
#define XRAY__PIECE_JUMP_BYTES 5
#define XRAY__PIECE_END_BYTES 10
#define XRAY__PIECE_RET_BYTES 24
#define XRAY__PIECE_RET_END_BYTES 30
/* Bytes after a piece's statements, for a link and whether it is last. */
unsigned xray__piece_link_bytes(int link, int last);

const char *xray__machine_code_isa(void);
/* The code it emits, in the words of a probe's method text ("x86-64
 * machine code"; "machine code" where this build emits none). */
const char *xray__machine_code_words(void);
const struct xray_stmt *xray__stmt_find(const char *name);
const struct xray_stmt *xray__stmt_at(size_t i);
struct xray__machine_code *xray__machine_code_new(const struct xray_stmt *s, size_t nmax, char *err,
                                                  size_t errlen);
void xray__machine_code_free(struct xray__machine_code *k);
void xray__machine_code_run(const struct xray__machine_code *k, size_t n, uint64_t iters);
int xray__machine_code_bytes(const struct xray_stmt *s, size_t nmax, unsigned char **out,
                             size_t *outlen);
int xray__machine_code_write_asm(FILE *f, const struct xray_stmt *s, size_t nmax);
/* A chain of n pieces of statement s run as a loop: piece i leaves for
 * piece i+1 by link (enum xray__link) and the last one ends the loop (see
 * machine-code.c).  Pieces must not overlap. */
int xray__chain_bytes(const struct xray_stmt *s, const struct xray__piece *p, size_t n, int link,
                      unsigned char **out, size_t *outlen, char *err, size_t errlen);
struct xray__machine_code *xray__chain_new(const struct xray_stmt *s, const struct xray__piece *p,
                                           size_t n, int link, char *err, size_t errlen);
void xray__chain_run(const struct xray__machine_code *k, uint64_t iters);

/* kernels/generate.c: C nano-benchmarks from a configuration <S1|...|Sn, type, nvars>. */
enum xray_cstyle { XRAY__STYLE_BARRIER, XRAY__STYLE_SWITCH };

struct xray_cspec {
  const char *stmts; /* "p0 = p0 + p1" or "S1|S2|..." */
  const char *type; /* C type of p0..p(nvars-1) */
  int nvars;
  int unroll; /* statements per iteration, at least */
  enum xray_cstyle style;
};

int xray__gen_c(FILE *f, const struct xray_cspec *c, char *err, size_t errlen);
int xray__gen_c_main(FILE *f, const struct xray_cspec *c);

/* kernels/c-kernel.c: compile and run a C kernel; ns per statement, code bytes. */
int xray__ckernel_run(const struct xray_cspec *c, const char *cc, const char *cflags,
                      double *ns_per_stmt, long *code_bytes, char *err, size_t errlen);

/* kernels/generate.c, kernels/kernel-set.c: kernel sets, many kernels in one compile.  The
 * generated unit defines xray_kernel_K(iters) and xray_avail_K for each
 * kernel K (barrier form) of part, part + parts, ... below n (parts 1:
 * every one); a type the compiler lacks at these flags (__m512d without
 * AVX-512) compiles to an unavailable kernel. */
int xray__gen_kernel_set(FILE *f, const struct xray_cspec *c, size_t n, size_t part, size_t parts,
                         char *err, size_t errlen);
/* Pragmas that keep a project's warning flags (-Werror) quiet on the
 * generated code that follows. */
void xray__gen_quiet(FILE *f);
/* The preprocessor condition for a type: NULL for a plain C type, "0" for
 * a type xray does not know, else e.g. "defined(__AVX__)". */
const char *xray__type_condition(const char *type);
/* Every type kernels can use, comma-separated, cut to len. */
void xray__type_list(char *buf, size_t len);
/* Register class of a known type: 0 integer, 1 floating scalar, 2 vector. */
int xray__type_class(const char *type);

struct xray__kernel_set {
  void *dl;
  size_t n;
  struct xray__kernel_set_k {
    long (*fn)(long);
    int avail; /* the compiler offers the type */
    int w; /* statements per iteration */
    double stack; /* spill instructions per statement in the loop; -1 unknown */
  } * k;
};

int xray__kernel_set_compile(struct xray__kernel_set *s, const struct xray_cspec *c, size_t n,
                             const char *cc, const char *cflags, char *err, size_t errlen);
void xray__kernel_set_free(struct xray__kernel_set *s);

/* kernels/kernel-set.c: compile the unit gen writes with cc and cflags
 * into a shared object loaded into this process (*dl); check (if not
 * NULL) reads the compiler's assembly (asm_path) before the temporary
 * files go.  0, or -1 with why. */
int xray__cc_load(int (*gen)(FILE *f, const void *arg, char *err, size_t errlen), const void *arg,
                  const char *cc, const char *cflags, void **dl,
                  void (*check)(void *ctx, const char *asm_path), void *ctx, char *err,
                  size_t errlen);
/* The same for a unit in parts (1 or 2): gen writes part p from arg[p];
 * the parts compile side by side and link into one object, and check
 * reads each part's assembly. */
int xray__cc_load_parts(int (*gen)(FILE *f, const void *arg, char *err, size_t errlen),
                        const void *const *arg, int parts, const char *cc, const char *cflags,
                        void **dl, void (*check)(void *ctx, const char *asm_path), void *ctx,
                        char *err, size_t errlen);

/* kernels/branch.c: the branch kernels (Counter Inspection Toolkit, Fig. 9
 * and Fig. 11), each long xray_branch_K(long size, long lim) running size
 * iterations.  The first two time the miss penalty: their if depends on a
 * fair random bit in the first lim iterations and is false after them;
 * the bit comes out of a dependent chain, longer in the second. */
enum {
  XRAY__BK_PENALTY,
  XRAY__BK_PENALTY_LONG,
  XRAY__BK_CIT, /* the paper's seven benchmarks (a)..(g) follow */
  XRAY__BK_N = XRAY__BK_CIT + 7
};

struct xray__bkernel {
  const char *name, *desc;
  double p_then; /* the chance an iteration runs the if-block */
  double miss; /* mispredictions per iteration; -1: set by lim */
  double paper[5]; /* the paper's Table 1 row: CE, CR, T, D, M per iteration */
  const char *body; /* C statements of one iteration */
};
const struct xray__bkernel *xray__bkernel_at(size_t i);

/* Per iteration of a compiled kernel's loop, weighting the paths through
 * and around its if-block by p_then. */
struct xray__bcount {
  double cond, taken, direct, insns, loads; /* conditional branches, those taken,
                                             * unconditional direct jumps,
                                             * instructions, loads */
  int selects; /* select instructions (cmov, csel, blends) on the loop's paths */
  int ok; /* counted; else why */
  char why[96];
};

struct xray__branch_set {
  void *dl;
  long (*fn[XRAY__BK_N])(long size, long lim);
  struct xray__bcount count[XRAY__BK_N];
};

int xray__branch_build(struct xray__branch_set *s, const char *cc, const char *cflags, char *err,
                       size_t errlen);
void xray__branch_free(struct xray__branch_set *s);
/* Kernel k's counts from assembly text f; 0, or -1 with out->why. */
int xray__branch_count_asm(FILE *f, size_t k, struct xray__bcount *out);

/* kernels/stream.c: the streaming kernels, each long long
 * xray_stream_K(void *a, void *b, void *c, size_t n, long reps): reps
 * passes over arrays of n vectors of `width` bytes (n a multiple of
 * XRAY__STREAM_UNIT), reading `reads` of its `arrays` and writing the
 * rest.  write-nt writes with non-temporal stores where nt is 1.  The
 * kernels from XRAY__SK_BASE on are the first four again with twice the
 * vectors a step (read2, write2, ...): where they move more, the loop,
 * not the level, was the limit (XRAY__SK_TWIN(k) is kernel k's). */
enum {
  XRAY__SK_READ,
  XRAY__SK_WRITE,
  XRAY__SK_COPY,
  XRAY__SK_TRIAD,
  XRAY__SK_WRITE_NT,
  XRAY__SK_BASE,
  XRAY__SK_READ2 = XRAY__SK_BASE,
  XRAY__SK_WRITE2,
  XRAY__SK_COPY2,
  XRAY__SK_TRIAD2,
  XRAY__SK_N
};
#define XRAY__SK_TWIN(k) ((k) + XRAY__SK_BASE)
/* The kernel whose loop kernel k is (itself, or the one it doubles). */
#define XRAY__SK_OF(k) ((k) >= XRAY__SK_BASE ? (k) - XRAY__SK_BASE : (k))
#define XRAY__STREAM_UNIT 8
struct xray__skernel {
  const char *name;
  int arrays, reads;
};
extern const struct xray__skernel xray__skernels[XRAY__SK_N];
struct xray__stream_set {
  void *dl;
  int width, nt;
  long long (*fn[XRAY__SK_N])(void *a, void *b, void *c, size_t n, long reps);
};
int xray__stream_build(struct xray__stream_set *s, const char *cc, const char *cflags, char *err,
                       size_t errlen);
void xray__stream_free(struct xray__stream_set *s);

/* kernels/c-kernel.c: the calling thread's private temporary directory (k.c
 * and up to XRAY__TMP_MORE more files, names[i] until a NULL, removed by
 * xray__tmp_close() and by xray_remove_temporaries()). */
#define XRAY__TMP_MORE 6
int xray__tmp_open(const char **csrc, const char *const names[XRAY__TMP_MORE], const char **paths,
                   char *err, size_t errlen);
/* Write the file path with gen (a generator of source text); 0, or -1
 * with why, a full disk included. */
int xray__write_source(const char *path,
                       int (*gen)(FILE *f, const void *arg, char *err, size_t errlen),
                       const void *arg, char *err, size_t errlen);
void xray__tmp_close(void);

/* kernels/command.c: commands run through /bin/sh without system(), so that the
 * caller's signal handlers stay live; 0 if cmd exits 0, else -1 with why
 * (exit status, signal).  stdout and stderr go to the file out, or
 * nowhere. */
int xray__run_shell(const char *cmd, const char *out, char *err, size_t errlen);
/* The n commands cmd[i] (output to out[i]) at once, n at most
 * XRAY__RUN_MAX, on the CPUs of xray__run_cpus: commands that time
 * nothing (a compiler), unlike xray__run_shell's, which run where the
 * thread does.  0 when each exits 0, else 1 + the index of the first
 * that did not, with why. */
#define XRAY__RUN_MAX 4
int xray__run_shells(char *const *cmd, const char *const *out, int n, char *err, size_t errlen);
/* Commands this thread starts run on CPUs cpu[0..n-1] (n 0: where the
 * thread runs): a thread bound to one CPU for timing gives its commands
 * the CPUs it had before (machine/os-kinds.c). */
void xray__run_cpus(const int *cpu, int n);
/* How many CPUs this thread's commands may use (at least 1). */
int xray__run_lanes(void);
/* Stop the command in flight, with its whole process group;
 * async-signal-safe. */
void xray__run_stop(void);
/* kernels/command.c: an entry of a process-wide list that a signal
 * handler walks (a handler can reach nothing else): each thread that
 * needs one claims a free entry (state 0 to 1, atomically) and frees it
 * by storing 0.  Entries are never freed, so that a handler never meets
 * freed memory, and the list grows by one at its head where every entry
 * is taken: no fixed table caps how many threads hold one.  A handler
 * reads *list and each next with __atomic_load_n (acquire). */
struct xray__slot {
  struct xray__slot *next; /* set before the entry is published */
  int state; /* 0: free; else the owner's (atomic) */
};
/* A claimed entry of *list (state 1): a free one, or a new one of size
 * bytes, zeroed but for its slot, which must come first; NULL without
 * memory. */
struct xray__slot *xray__slot_claim(struct xray__slot **list, size_t size);
/* printf to a new string, and s as one quoted shell word; NULL without
 * memory. */
char *xray__strf(const char *fmt, ...);
char *xray__shell_word(const char *s);
/* " -g0" where a word of cflags asks for debug information (-g...), else
 * "": put after them, it leaves every kernel's code as it is (GCC and
 * Clang hold -g to generate the same instructions), and spares the
 * compiler and the assembler the debug information, a third more time. */
const char *xray__no_debug(const char *cflags);

#endif
