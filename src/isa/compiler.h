/* isa/compiler.h: what differs between the compilers xray is built
 * with, for every layer; a leaf, beside isa.h. */
#ifndef XRAY__COMPILER_H
#define XRAY__COMPILER_H

/* Timed loops run as the hardware runs them: a sanitizer's checks
 * (--enable-sanitizers) load shadow memory, which would share the caches
 * and TLBs the loops measure. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 8)
#define XRAY__UNINSTRUMENTED __attribute__((no_sanitize("address", "undefined")))
#else
#define XRAY__UNINSTRUMENTED
#endif

/* State of one thread's own (a pin, a signal's way back): two threads may
 * each measure a machine of their own. */
#if defined(__GNUC__) || defined(__clang__)
#define XRAY__THREAD_LOCAL __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define XRAY__THREAD_LOCAL _Thread_local
#else
#define XRAY__THREAD_LOCAL
#endif

/* A prefetch of the line at p for reading, where the compiler has one
 * (XRAY__HAVE_PREFETCH 1), else nothing. */
#if defined(__GNUC__) || defined(__clang__)
#define XRAY__HAVE_PREFETCH 1
#define XRAY__PREFETCH(p) __builtin_prefetch(p)
#else
#define XRAY__HAVE_PREFETCH 0
#define XRAY__PREFETCH(p) ((void) (p))
#endif

#endif
