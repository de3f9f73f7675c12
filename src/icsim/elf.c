/* A program for the static I-cache simulator read from machine code: an
 * ELF file's function symbols and sections with libelf, instruction
 * lengths and branch targets with Capstone (x86-64 and AArch64).
 *
 * A function's blocks start at its entry, at every branch target inside
 * it and after every branch, call and return; a block ends with them.  A
 * direct call to a function of the file (resolved through the object's
 * relocations where it is one) makes that function part of the program;
 * an indirect call, or one that leaves the file, is an instruction like
 * any other, and an indirect jump ends its block with nowhere to go.  What
 * was not followed is said in r->notes.  In an object file addresses are
 * offsets in its sections: where the code lands is fixed only by the
 * link. */
#ifdef HAVE_CONFIG_H
#include "config.h" /* XRAY__HAVE_CAPSTONE */
#endif
#include "icsim/private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef XRAY__HAVE_CAPSTONE

int
xray__icsim_read(const char *file, const char *func, struct xray__icread *r, char *err,
                 size_t errlen)
{
  (void) file, (void) func;
  memset(r, 0, sizeof *r);
  snprintf(err, errlen,
           "xray was built without Capstone and libelf, so it cannot read machine "
           "code: install libcapstone-dev and libelf-dev (Debian) and build it again");
  return -1;
}

int
xray__icsim_functions(const char *file, char ***names, size_t *n, char *err, size_t errlen)
{
  struct xray__icread r;

  *names = NULL;
  *n = 0;
  return xray__icsim_read(file, NULL, &r, err, errlen);
}

void
xray__icsim_read_free(struct xray__icread *r)
{
  (void) r;
}

#else

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

struct sym {
  char *name;
  uint64_t addr, size;
  size_t shndx;
};

struct reloc {
  size_t shndx; /* the section it patches */
  uint64_t off;
  char *name; /* the symbol it points to */
};

struct elfin {
  int fd;
  Elf *e;
  csh cs;
  int arm;
  struct sym *sym;
  size_t nsym;
  struct reloc *rel;
  size_t nrel;
};

static char *
xstrdup(const char *s)
{
  char *d = malloc(strlen(s) + 1);

  return d ? strcpy(d, s) : NULL;
}

/* The function symbols of a symbol table section, and for relocation
 * sections the symbols they name. */
static int
read_symbols(struct elfin *in, Elf_Scn *scn, const GElf_Shdr *sh)
{
  Elf_Data *d = elf_getdata(scn, NULL);
  size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

  for (i = 0; d && i < n; i++) {
    GElf_Sym s;
    const char *name;
    struct sym *t;
    if (!gelf_getsym(d, (int) i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size
        || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
      continue;
    if (!(name = elf_strptr(in->e, sh->sh_link, s.st_name)) || !*name)
      continue;
    if (!(t = realloc(in->sym, (in->nsym + 1) * sizeof *t)))
      return -1;
    in->sym = t;
    t[in->nsym].name = xstrdup(name);
    t[in->nsym].addr = s.st_value;
    t[in->nsym].size = s.st_size;
    t[in->nsym].shndx = s.st_shndx;
    if (!t[in->nsym++].name)
      return -1;
  }
  return 0;
}

static int
read_relocs(struct elfin *in, Elf_Scn *scn, const GElf_Shdr *sh)
{
  Elf_Data *d = elf_getdata(scn, NULL);
  Elf_Scn *st = elf_getscn(in->e, sh->sh_link);
  GElf_Shdr ssh;
  Elf_Data *sd = st ? elf_getdata(st, NULL) : NULL;
  size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

  if (!sd || !gelf_getshdr(st, &ssh))
    return 0;
  for (i = 0; d && i < n; i++) {
    GElf_Rela ra;
    GElf_Rel rl;
    GElf_Sym s;
    uint64_t off, info;
    const char *name;
    struct reloc *t;
    if (sh->sh_type == SHT_RELA ? !gelf_getrela(d, (int) i, &ra) : !gelf_getrel(d, (int) i, &rl))
      continue;
    off = sh->sh_type == SHT_RELA ? ra.r_offset : rl.r_offset;
    info = sh->sh_type == SHT_RELA ? ra.r_info : rl.r_info;
    if (!gelf_getsym(sd, (int) GELF_R_SYM(info), &s)
        || !(name = elf_strptr(in->e, ssh.sh_link, s.st_name)) || !*name)
      continue;
    if (!(t = realloc(in->rel, (in->nrel + 1) * sizeof *t)))
      return -1;
    in->rel = t;
    t[in->nrel].shndx = sh->sh_info;
    t[in->nrel].off = off;
    if (!(t[in->nrel++].name = xstrdup(name)))
      return -1;
  }
  return 0;
}

static void
close_elf(struct elfin *in)
{
  size_t i;

  for (i = 0; i < in->nsym; i++)
    free(in->sym[i].name);
  for (i = 0; i < in->nrel; i++)
    free(in->rel[i].name);
  free(in->sym);
  free(in->rel);
  if (in->cs)
    cs_close(&in->cs);
  if (in->e)
    elf_end(in->e);
  if (in->fd >= 0)
    close(in->fd);
}

static int
open_elf(const char *file, struct elfin *in, int *relocatable, char *err, size_t errlen)
{
  GElf_Ehdr eh;
  Elf_Scn *scn = NULL;
  int have_symtab = 0;

  memset(in, 0, sizeof *in);
  in->fd = -1;
  if (elf_version(EV_CURRENT) == EV_NONE || (in->fd = open(file, O_RDONLY)) < 0) {
    snprintf(err, errlen, "cannot open '%s': %s", file, strerror(errno));
    return -1;
  }
  if (!(in->e = elf_begin(in->fd, ELF_C_READ, NULL)) || elf_kind(in->e) != ELF_K_ELF
      || !gelf_getehdr(in->e, &eh)) {
    snprintf(err, errlen, "'%s' is not an ELF object or executable", file);
    return -1;
  }
  *relocatable = eh.e_type == ET_REL;
  in->arm = eh.e_machine == EM_AARCH64;
  if ((eh.e_machine != EM_X86_64 && !in->arm)
      || cs_open(in->arm ? CS_ARCH_ARM64 : CS_ARCH_X86, in->arm ? CS_MODE_ARM : CS_MODE_64, &in->cs)
          != CS_ERR_OK) {
    snprintf(err, errlen,
             "'%s' is machine code for ELF machine %u: xray icsim reads x86-64 "
             "and AArch64",
             file, (unsigned) eh.e_machine);
    return -1;
  }
  cs_option(in->cs, CS_OPT_DETAIL, CS_OPT_ON);
  while ((scn = elf_nextscn(in->e, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
      continue;
    if (sh.sh_type == SHT_SYMTAB)
      have_symtab = 1;
    if ((sh.sh_type == SHT_SYMTAB && read_symbols(in, scn, &sh))
        || ((sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) && read_relocs(in, scn, &sh))) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  }
  while (!have_symtab && (scn = elf_nextscn(in->e, scn))) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && read_symbols(in, scn, &sh)) {
      snprintf(err, errlen, "out of memory");
      return -1;
    }
  }
  if (!in->nsym) {
    snprintf(err, errlen, "'%s' has no function symbols (stripped?)", file);
    return -1;
  }
  return 0;
}

enum kind { K_OTHER, K_JUMP, K_CJUMP, K_IJUMP, K_CALL, K_ICALL, K_END };

/* What instruction i does to control, and its direct target. */
static enum kind
classify(const struct elfin *in, const cs_insn *i, uint64_t *target)
{
  *target = 0;
  if (!in->arm) {
    const cs_x86 *x = &i->detail->x86;
    int imm = x->op_count > 0 && x->operands[0].type == X86_OP_IMM;
    if (imm)
      *target = (uint64_t) x->operands[0].imm;
    if (cs_insn_group(in->cs, i, CS_GRP_RET) || cs_insn_group(in->cs, i, CS_GRP_IRET)
        || i->id == X86_INS_UD2 || i->id == X86_INS_HLT)
      return K_END;
    if (cs_insn_group(in->cs, i, CS_GRP_CALL))
      return imm ? K_CALL : K_ICALL;
    if (cs_insn_group(in->cs, i, CS_GRP_JUMP))
      return !imm ? K_IJUMP : i->id == X86_INS_JMP ? K_JUMP : K_CJUMP;
    return K_OTHER;
  } else {
    const cs_arm64 *a = &i->detail->arm64;
    int k;
    for (k = a->op_count; k-- > 0;)
      if (a->operands[k].type == ARM64_OP_IMM) {
        *target = (uint64_t) a->operands[k].imm;
        break;
      }
    switch (i->id) {
    case ARM64_INS_RET:
      return K_END;
    case ARM64_INS_BL:
      return K_CALL;
    case ARM64_INS_BLR:
      return K_ICALL;
    case ARM64_INS_BR:
      return K_IJUMP;
    case ARM64_INS_B:
      return a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL ? K_JUMP : K_CJUMP;
    case ARM64_INS_CBZ:
    case ARM64_INS_CBNZ:
    case ARM64_INS_TBZ:
    case ARM64_INS_TBNZ:
      return K_CJUMP;
    default:
      return K_OTHER;
    }
  }
}

static void
note(struct xray__icread *r, const char *fmt, const char *what, uint64_t addr)
{
  size_t len = strlen(r->notes);
  char one[120];

  snprintf(one, sizeof one, fmt, what, (unsigned long long) addr);
  if (!strstr(r->notes, one) && len + strlen(one) + 3 < sizeof r->notes)
    snprintf(r->notes + len, sizeof r->notes - len, "%s%s", len ? "; " : "", one);
}

static long
find_sym(const struct elfin *in, const char *name)
{
  size_t i;

  for (i = 0; i < in->nsym; i++)
    if (strcmp(in->sym[i].name, name) == 0)
      return (long) i;
  return -1;
}

/* The function a direct call at instruction i of symbol s goes to: its
 * relocation in an object file, else the symbol at its target. */
static long
call_target(const struct elfin *in, const struct sym *s, const cs_insn *i, uint64_t target)
{
  uint64_t at = i->address + (in->arm ? 0 : 1);
  size_t k;

  for (k = 0; k < in->nrel; k++)
    if (in->rel[k].shndx == s->shndx && in->rel[k].off == at)
      return find_sym(in, in->rel[k].name);
  for (k = 0; k < in->nsym; k++)
    if (in->sym[k].addr == target && in->sym[k].shndx == s->shndx)
      return (long) k;
  return -1;
}

struct builder {
  struct xray__icread *r;
  size_t *first_insn; /* each block's first instruction in r->insn */
  long *fidx; /* each symbol's function, -1 */
  size_t *queue; /* symbols of functions to decode, in function order */
  size_t nq;
};

static long
function_of(struct builder *bd, size_t sym)
{
  if (bd->fidx[sym] < 0) {
    bd->fidx[sym] = (long) bd->nq;
    bd->queue[bd->nq++] = sym;
  }
  return bd->fidx[sym];
}

static int
grow(void **p, size_t n, size_t size)
{
  void *q = realloc(*p, (n + 1) * size);

  if (q)
    *p = q;
  return q ? 0 : -1;
}

/* Instruction index of address a among n (in address order), or -1. */
static long
index_of(const cs_insn *ins, size_t n, uint64_t a)
{
  size_t lo = 0, hi = n;

  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (ins[mid].address < a)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && ins[lo].address == a ? (long) lo : -1;
}

/* The successors and call of block bi (local first instruction first,
 * last instruction last, kind k, target t) among the function's blocks. */
static void
link_block(struct elfin *in, struct builder *bd, const struct sym *s, const cs_insn *ins, size_t n,
           const long *blk, size_t base, size_t last, enum kind k, uint64_t t)
{
  struct xray__icread *r = bd->r;
  struct xray__icblock *b = &r->b[base + (size_t) blk[last]];
  long ti = index_of(ins, n, t);

  b->succ[0] = b->succ[1] = b->call = -1;
  if (k != K_JUMP && k != K_IJUMP && k != K_END && last + 1 < n)
    b->succ[0] = (int) (base + (size_t) blk[last + 1]);
  if (k == K_CJUMP || k == K_JUMP) {
    if (ti >= 0)
      b->succ[k == K_JUMP ? 0 : 1] = (int) (base + (size_t) blk[ti]);
    else if (t < s->addr || t >= s->addr + s->size)
      note(r, "%s leaves the function at %#llx", k == K_JUMP ? "a jump" : "a branch",
           ins[last].address);
  } else if (k == K_IJUMP)
    note(r, "%s at %#llx is not followed", "an indirect jump", ins[last].address);
  else if (k == K_ICALL)
    note(r, "%s at %#llx is not followed", "an indirect call", ins[last].address);
  else if (k == K_CALL) {
    long c = call_target(in, s, &ins[last], t);
    if (c >= 0)
      b->call = (int) function_of(bd, (size_t) c);
    else
      note(r, "%s at %#llx goes out of the file", "a call", ins[last].address);
  }
}

/* Function number fi, symbol sym: its blocks, appended to r. */
static int
decode(struct elfin *in, struct builder *bd, size_t fi, size_t sym, char *err, size_t errlen)
{
  struct xray__icread *r = bd->r;
  const struct sym *s = &in->sym[sym];
  Elf_Scn *scn = elf_getscn(in->e, s->shndx);
  Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
  GElf_Shdr sh;
  cs_insn *ins = NULL;
  size_t n = 0, i, base = r->nb;
  unsigned char *lead = NULL;
  long *blk = NULL, nblk = -1;
  int rc = -1;

  if (!d || !gelf_getshdr(scn, &sh) || !d->d_buf || s->addr < sh.sh_addr
      || s->addr - sh.sh_addr + s->size > d->d_size
      || !(n = cs_disasm(in->cs, (const uint8_t *) d->d_buf + (s->addr - sh.sh_addr), s->size,
                         s->addr, 0, &ins))) {
    snprintf(err, errlen, "cannot decode %s (%llu bytes at %#llx)", s->name,
             (unsigned long long) s->size, (unsigned long long) s->addr);
    return -1;
  }
  if (!(lead = calloc(n + 1, 1)) || !(blk = malloc(n * sizeof *blk)))
    goto out;
  lead[0] = 1;
  for (i = 0; i < n; i++) {
    uint64_t t;
    enum kind k = classify(in, &ins[i], &t);
    long ti = index_of(ins, n, t);
    if ((k == K_JUMP || k == K_CJUMP) && ti >= 0)
      lead[ti] = 1;
    if (k != K_OTHER)
      lead[i + 1] = 1;
  }
  for (i = 0; i < n; i++) {
    if (lead[i]) {
      if (grow((void **) &r->b, r->nb, sizeof *r->b)
          || grow((void **) &bd->first_insn, r->nb, sizeof *bd->first_insn))
        goto out;
      memset(&r->b[r->nb], 0, sizeof *r->b);
      bd->first_insn[r->nb++] = r->ninsn;
      nblk++;
    }
    if (grow((void **) &r->insn, r->ninsn, sizeof *r->insn))
      goto out;
    r->insn[r->ninsn++] = ins[i].address;
    r->b[r->nb - 1].ninsn++;
    r->b[r->nb - 1].end = ins[i].address + ins[i].size;
    blk[i] = nblk;
  }
  for (i = 0; i < n; i++)
    if (i + 1 == n || lead[i + 1]) {
      uint64_t t;
      enum kind k = classify(in, &ins[i], &t);
      link_block(in, bd, s, ins, n, blk, base, i, k, t);
    }
  r->f[fi].first = base;
  r->f[fi].n = r->nb - base;
  rc = (r->f[fi].name = xstrdup(s->name)) ? 0 : -1;
out:
  if (rc)
    snprintf(err, errlen, "out of memory");
  cs_free(ins, n);
  free(lead);
  free(blk);
  return rc;
}

int
xray__icsim_read(const char *file, const char *func, struct xray__icread *r, char *err,
                 size_t errlen)
{
  struct elfin in;
  struct builder bd = { r, NULL, NULL, NULL, 0 };
  long root;
  size_t i;
  int rc = -1;

  memset(r, 0, sizeof *r);
  if (open_elf(file, &in, &r->relocatable, err, errlen))
    goto out;
  if ((root = find_sym(&in, func)) < 0) {
    snprintf(err, errlen, "'%s' defines no function '%s'", file, func);
    goto out;
  }
  bd.fidx = malloc(in.nsym * sizeof *bd.fidx);
  bd.queue = malloc(in.nsym * sizeof *bd.queue);
  r->f = calloc(in.nsym, sizeof *r->f);
  if (!bd.fidx || !bd.queue || !r->f) {
    snprintf(err, errlen, "out of memory");
    goto out;
  }
  for (i = 0; i < in.nsym; i++)
    bd.fidx[i] = -1;
  function_of(&bd, (size_t) root);
  for (i = 0; i < bd.nq; i++)
    if (decode(&in, &bd, i, bd.queue[i], err, errlen))
      goto out;
  r->nf = bd.nq;
  for (i = 0; i < r->nb; i++)
    r->b[i].insn = r->insn + bd.first_insn[i];
  r->prog = (struct xray__icprog){ r->b, r->nb, r->f, r->nf, 0 };
  rc = 0;
out:
  if (rc) {
    r->nf = bd.nq;
    xray__icsim_read_free(r);
  }
  free(bd.first_insn);
  free(bd.fidx);
  free(bd.queue);
  close_elf(&in);
  return rc;
}

void
xray__icsim_read_free(struct xray__icread *r)
{
  size_t i;

  for (i = 0; r->f && i < r->nf; i++)
    free((char *) r->f[i].name);
  free(r->f);
  free(r->b);
  free(r->insn);
  memset(r, 0, sizeof *r);
}

int
xray__icsim_functions(const char *file, char ***names, size_t *n, char *err, size_t errlen)
{
  struct elfin in;
  int relocatable;
  size_t i;

  *names = NULL;
  *n = 0;
  if (open_elf(file, &in, &relocatable, err, errlen)) {
    close_elf(&in);
    return -1;
  }
  if (!(*names = calloc(in.nsym, sizeof **names))) {
    close_elf(&in);
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  for (i = 0; i < in.nsym; i++) {
    (*names)[i] = in.sym[i].name;
    in.sym[i].name = NULL;
  }
  *n = in.nsym;
  close_elf(&in);
  return 0;
}

#endif
