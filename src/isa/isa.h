/* isa/: what differs between instruction sets, one file each: x86.c
 * (x86-64 and i386), aarch64.c, and generic.c for every other; exactly
 * one of them has a body in a build.  A leaf: it knows no machine, probe
 * or backend.  (The x86-64 machine-code emitter is kernels/machine-code.c.) */
#ifndef XRAY__ISA_H
#define XRAY__ISA_H

#include <stdint.h>

/* The cheapest monotonic counter the ISA offers, its name ("tsc",
 * "cntvct", "clock_gettime"), and its rate where the ISA fixes it (1e9 for
 * clock_gettime's nanoseconds), else 0: measured against the wall clock. */
uint64_t xray__isa_ticks(void);
extern const char xray__isa_tick_source[];
double xray__isa_tick_hz(void);

/* The fused multiply-add instruction a kernel times ("x86-64 FMA3
 * (vfmadd231sd)"), or NULL where xray has none; its loop: iters
 * iterations of 12 such instructions, in one dependent chain (chains 1) or
 * twelve independent ones.  It raises SIGILL where the processor lacks the
 * instruction. */
extern const char *const xray__isa_fma_name;
void xray__isa_fma_loop(int chains, uint64_t iters);

/* The flag of /proc/cpuinfo that says the processor has that instruction
 * ("fma"), or NULL where the kernel names none. */
extern const char *const xray__isa_fma_flag;

/* The data TLB of level 1 or 2 for 4 KB pages as the processor describes
 * itself (x86: AMD's CPUID leaves 0x80000005 and 0x80000006): entries,
 * and ways (entries for fully associative; 0 where the encoding gives no
 * count).  0, or -1 where it says nothing. */
int xray__isa_tlb(int level, unsigned *entries, unsigned *ways);
/* The L1 data (data 1) or instruction (0) cache as the processor
 * describes itself (x86: AMD's CPUID leaf 0x80000005, else the
 * deterministic cache parameters of leaf 4): bytes, ways (its lines for
 * fully associative) and line size.  0, or -1 where it says nothing. */
int xray__isa_l1(int data, unsigned *size, unsigned *ways, unsigned *line);

#endif
