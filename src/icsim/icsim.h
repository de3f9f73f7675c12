/* icsim/: static instruction-cache simulation (Mueller and Whalley, "Fast
 * Instruction Cache Analysis via Static Cache Simulation"), generalised
 * from direct-mapped to set-associative LRU caches of any geometry.
 *
 * A program is functions of basic blocks, each a run of instructions
 * ending in a branch, a call or a return.  Functions are told apart by
 * their instances over the call graph; every reference of an instance's
 * block to a program line is categorised always-hit, always-miss,
 * first-miss or conflict, for the whole program and for each loop that
 * holds it, from abstract cache states found by iterative data flow
 * (paper Fig. 2; here Ferdinand's must and may LRU states, which for one
 * way are the paper's).  Totals of hits and misses follow for a path
 * through the program, and equal a trace-driven simulation's (model/). */
#ifndef XRAY__ICSIM_H
#define XRAY__ICSIM_H

#include <stddef.h>
#include <stdint.h>

struct xray__icblock {
  const uint64_t *insn; /* start address of each instruction */
  size_t ninsn;
  uint64_t end; /* first byte past the last instruction */
  int succ[2]; /* blocks of the function: [0] the fall-through (or
                         * the only successor), [1] a taken branch; -1 none */
  int call; /* function called at the block's end, whose
                         * return goes to succ[0]; -1 none */
};

struct xray__icfunc {
  const char *name;
  size_t first, n; /* its blocks, the entry first */
};

struct xray__icprog {
  const struct xray__icblock *b;
  size_t nb;
  const struct xray__icfunc *f;
  size_t nf;
  size_t root; /* the function the program starts in */
};

enum xray__iccat { XRAY__IC_HIT, XRAY__IC_MISS, XRAY__IC_FIRST, XRAY__IC_CONFLICT };

/* A reference: the first instruction of a block instance touching a
 * program line (the others touching it in that run are hits). */
struct xray__icref {
  size_t node; /* instance block: icsim's node */
  size_t line; /* program line id */
  size_t insns; /* instructions of the block touching it */
  unsigned char global; /* enum xray__iccat for the whole program */
  unsigned char *level; /* for each loop holding the node, innermost first */
};

/* A loop of an instance: its header node, the loop around it. */
struct xray__icloop {
  size_t header;
  int parent; /* enclosing loop (of this instance or a caller's), -1 */
  size_t depth; /* 0 outermost */
  uint64_t *nodes; /* bitset of the nodes it holds, callees' included */
};

struct xray__icsim {
  const struct xray__icprog *p;
  unsigned long size, ways, line, sets;
  size_t nnodes, nlines, nrefs, nloops;
  size_t *node_block, *node_inst; /* each node's block and instance */
  size_t *node_callee; /* the instance a node's call leads to */
  int *node_loop; /* innermost loop holding it, -1 */
  uint64_t *line_addr; /* line address of each program line */
  struct xray__icref *ref; /* by node, in order */
  size_t *node_ref; /* node n's refs: [node_ref[n], node_ref[n+1]) */
  struct xray__icloop *loop;
  struct xray__icinst {
    size_t func, base; /* its nodes: base + (block - func's first) */
    int parent; /* calling instance, -1 for the root */
    size_t site; /* the calling node */
  } * inst;
  size_t ninst;
  char error[200];
};

/* Analyse p for a cache of size bytes, ways and line bytes (any set
 * count); 0, or -1 with why in s->error (recursion, a call to no
 * function, a cache that does not divide). */
int xray__icsim_analyse(struct xray__icsim *s, const struct xray__icprog *p, unsigned long size,
                        unsigned long ways, unsigned long line);
void xray__icsim_free(struct xray__icsim *s);
/* The nodes control goes to after node n (a call's callee entry, a
 * return's call site fall-through), at most 2, in out[]; how many. */
int xray__icsim_successors(const struct xray__icsim *s, size_t n, size_t out[2]);

/* A path through the program: block b's k-th execution, where it has two
 * successors, takes succ[pattern[b][k % strlen]] ('0' or '1'); NULL for a
 * block that never branches both ways.  Or loop iteration counts. */
struct xray__icpath {
  const char *const *pattern;
  uint64_t max_refs; /* stop after this many references (0: 1e9) */
  /* If not 0, instead of patterns: a branch stays in the innermost loop
   * that only one of its successors stays in while the loop's header has
   * run fewer than this many times since control entered the loop, and
   * leaves it then; other branches take their first successor. */
  unsigned long iterations;
};

struct xray__ictotals {
  uint64_t refs, hits, misses;
  uint64_t by_cat[4][2]; /* [category][0 hits, 1 misses] of the trace */
  uint64_t *ref_misses; /* if not NULL: each reference's misses (trace) */
  int truncated; /* the path was cut at max_refs */
};

/* Totals along path: statically (frequencies, and a simulation of only the
 * sets that more program lines map to than they have ways), or by a
 * trace-driven simulation of every reference with model/'s LRU cache
 * (which also fills by_cat from the categories, to check them).  0, or -1
 * with why. */
int xray__icsim_static(struct xray__icsim *s, const struct xray__icpath *path,
                       struct xray__ictotals *t);
int xray__icsim_trace(struct xray__icsim *s, const struct xray__icpath *path,
                      struct xray__ictotals *t);

/* elf.c: the program around function func of an ELF file's machine code
 * (x86-64, AArch64), read with libelf and Capstone: func is the root, and
 * every function of the file it calls directly is in it.  0, or -1 with
 * why (no such file or function, not ELF, another ISA, or xray built
 * without Capstone and libelf). */
struct xray__icread {
  struct xray__icprog prog;
  struct xray__icblock *b;
  struct xray__icfunc *f;
  uint64_t *insn;
  size_t nb, nf, ninsn;
  int relocatable; /* an object file: addresses are offsets in sections */
  char notes[400]; /* what was not followed: indirect jumps and calls, calls
                     * out of the file */
};
int xray__icsim_read(const char *file, const char *func, struct xray__icread *r, char *err,
                     size_t errlen);
void xray__icsim_read_free(struct xray__icread *r);
/* The names of the functions file defines (strings and array malloc'd). */
int xray__icsim_functions(const char *file, char ***names, size_t *n, char *err, size_t errlen);

#endif
