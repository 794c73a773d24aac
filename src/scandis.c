/* SPDX-License-Identifier: PostgreSQL */
/* scandis.c - disassembly for pgsc-scan (capstone, x86-64): function
 * starts, call edges, syscall sites and their numbers. */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pgsc-int.h"
#include "scan.h"

/* The value a register holds within a basic block. */
enum { V_UNKNOWN = 0, V_CONST, V_ARG0 };
struct regval {
	int kind;
	int64_t v;
};

struct jump {
	uint64_t src, dst;
};

struct dis {
	struct scan_obj *o;
	csh cs;
	cs_insn *insn;
	uint64_t *starts;
	size_t nstarts, capstarts;
	struct jump *jumps;
	size_t njumps, capjumps;
	uint64_t *targets;         /* sorted jump targets: block starts */
	uint32_t *tcount;          /* how many jumps go to each */
	size_t ntargets;
};

static int
grow(void *v, size_t *cap, size_t n, size_t size)
{
	return util_grow_array(v, cap, n, size, 256);
}

static int
add_start(struct dis *d, uint64_t a)
{
	if (scanelf_sec(d->o, a) == NULL)
		return 0;
	if (grow(&d->starts, &d->capstarts, d->nstarts, sizeof(uint64_t)) < 0)
		return -ENOMEM;
	d->starts[d->nstarts++] = a;
	return 0;
}

static size_t
uniq(uint64_t *v, size_t n)
{
	size_t k = 0;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), util_u64_cmp);
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[k])
			v[++k] = v[i];
	return k + 1;
}

static int
is_jump(const cs_insn *in)
{
	const cs_detail *dt = in->detail;

	for (int i = 0; i < dt->groups_count; i++)
		if (dt->groups[i] == CS_GRP_JUMP)
			return 1;
	return 0;
}

/* The address a direct call/jump goes to, or 0. */
static uint64_t
direct_target(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
		return (uint64_t)x->operands[0].imm;
	return 0;
}

/* The address of a RIP-relative memory operand without index, or 0. */
static uint64_t
rip_operand(const cs_insn *in)
{
	const cs_x86 *x = &in->detail->x86;

	for (int i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP &&
		    op->mem.index == X86_REG_INVALID)
			return in->address + in->size + (uint64_t)op->mem.disp;
	}
	return 0;
}

/* Walk [addr, end) of @sec, calling @fn for each instruction; bytes that
 * do not decode are skipped one at a time and counted. */
typedef int (*insn_fn)(struct dis *d, const cs_insn *in, void *arg);

static int
walk(struct dis *d, const struct scan_sec *sec, uint64_t addr, uint64_t end,
     insn_fn fn, void *arg, int count)
{
	const uint8_t *code;
	size_t size;
	uint64_t a = addr;
	int rc;

	if (end > sec->addr + sec->size)
		end = sec->addr + sec->size;
	while (a < end) {
		code = sec->data + (a - sec->addr);
		size = (size_t)(end - a);
		if (!cs_disasm_iter(d->cs, &code, &size, &a, d->insn)) {
			if (count)
				d->o->bad_bytes++;
			a++;
			rc = fn(d, NULL, arg);
			if (rc != 0)
				return rc;
			continue;
		}
		if (count)
			d->o->insns++;
		rc = fn(d, d->insn, arg);
		if (rc < 0)
			return rc;
		if (rc > 0)
			break;
	}
	return 0;
}

/* Pass 1: call targets, code addresses in operands, jumps. */
static int
pass1(struct dis *d, const cs_insn *in, void *arg)
{
	const struct scan_sec *sec = arg;
	uint64_t t;

	if (in == NULL)
		return 0;
	if (in->id == X86_INS_CALL) {
		t = direct_target(in);
		if (t != 0 && add_start(d, t) < 0)
			return -ENOMEM;
	} else if (is_jump(in)) {
		t = direct_target(in);
		if (t != 0) {
			if (grow(&d->jumps, &d->capjumps, d->njumps,
				 sizeof(*d->jumps)) < 0)
				return -ENOMEM;
			d->jumps[d->njumps].src = in->address;
			d->jumps[d->njumps++].dst = t;
		}
		/* a PLT stub ends at its first jump */
		if (sec->plt && in->id == X86_INS_JMP &&
		    add_start(d, in->address + in->size) < 0)
			return -ENOMEM;
	} else if (in->id == X86_INS_LEA) {
		t = rip_operand(in);
		if (t != 0 && scanelf_sec(d->o, t) != NULL) {
			if (add_start(d, t) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

long
scandis_func_at(const struct scan_obj *o, uint64_t addr)
{
	size_t lo = 0, hi = o->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	lo--;
	if (addr >= o->funcs[lo].end)
		return -1;
	return (long)lo;
}

/* The end of the function starting at starts[i]: the next start or the
 * end of its section. */
static uint64_t
start_end(const struct dis *d, size_t i)
{
	const struct scan_sec *sec = scanelf_sec(d->o, d->starts[i]);
	uint64_t end = sec->addr + sec->size;

	if (i + 1 < d->nstarts && d->starts[i + 1] < end)
		end = d->starts[i + 1];
	return end;
}

static size_t
start_index(const struct dis *d, uint64_t a)
{
	size_t lo = 0, hi = d->nstarts;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->starts[mid] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 0 : lo - 1;
}

static int
add_edge(struct scan_func *f, uint32_t local, const char *import,
	 int32_t arg0)
{
	for (size_t i = 0; i < f->nedges; i++)
		if (f->edges[i].local == local && f->edges[i].import == import &&
		    f->edges[i].arg0 == arg0)
			return 0;
	/* Per-function arrays start small: 285,000 functions (docs/static.md). */
	if (util_grow_array(&f->edges, &f->capedges, f->nedges, sizeof(*f->edges),
		      4) < 0)
		return -ENOMEM;
	f->edges[f->nedges].local = local;
	f->edges[f->nedges].import = import;
	f->edges[f->nedges++].arg0 = arg0;
	return 0;
}

static int
add_sys(struct scan_func *f, int32_t nr)
{
	for (size_t i = 0; i < f->nsys; i++)
		if (f->sys[i] == nr)
			return 0;
	if (util_grow_array(&f->sys, &f->capsys, f->nsys, sizeof(*f->sys), 2) < 0)
		return -ENOMEM;
	f->sys[f->nsys++] = nr;
	return 0;
}

static int
add_taken_import(struct scan_obj *o, size_t *cap, const char *name)
{
	for (size_t i = 0; i < o->ntaken_imports; i++)
		if (o->taken_imports[i] == name)
			return 0;
	if (grow(&o->taken_imports, cap, o->ntaken_imports,
		 sizeof(*o->taken_imports)) < 0)
		return -ENOMEM;
	o->taken_imports[o->ntaken_imports++] = name;
	return 0;
}

struct fstate {
	struct scan_func *f;
	const struct scan_sec *sec;
	size_t cap_taken_imports;
	struct regval r[16];      /* what each general register holds */
	/* the named slot each general register was loaded from in this
	 * block (mov reg, [rip+GOT]; call reg) */
	const char *loaded[16];
	int called[16];
	int err;
	struct scan_obj *o;
	/* the registers at each forward jump inside the function, merged at
	 * its target when every jump there is known */
	struct snap {
		uint64_t dst;
		struct regval r[16];
	} *snaps;
	size_t nsnaps, capsnaps;
	int falls;                /* the previous instruction falls through */
};

/* r8..r15 come in capstone's enum as one run of eight per width. */
_Static_assert(X86_REG_R15 == X86_REG_R8 + 7 &&
	       X86_REG_R15D == X86_REG_R8D + 7 &&
	       X86_REG_R15W == X86_REG_R8W + 7 &&
	       X86_REG_R15B == X86_REG_R8B + 7, "capstone's r8..r15 runs");

/* 0..15 for a general register of any width, or -1. */
static int
gpr(unsigned r)
{
	static const unsigned r8[] = {
		X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B
	};

	for (size_t i = 0; i < ARRAY_SIZE(r8); i++)
		if (r >= r8[i] && r < r8[i] + 8)
			return 8 + (int)(r - r8[i]);
	switch (r) {
	case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AL:
	case X86_REG_AH: return 0;
	case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CL:
	case X86_REG_CH: return 1;
	case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DL:
	case X86_REG_DH: return 2;
	case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BL:
	case X86_REG_BH: return 3;
	case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL:
		return 4;
	case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL:
		return 5;
	case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL:
		return 6;
	case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL:
		return 7;
	default: return -1;
	}
}

/* Forget what register @g was loaded from: a function pointer loaded and
 * not called in the block is taken as address-taken. */
static void
unload(struct fstate *s, int g)
{
	if (s->loaded[g] != NULL && !s->called[g] &&
	    add_taken_import(s->o, &s->cap_taken_imports, s->loaded[g]) < 0)
		s->err = -ENOMEM;
	s->loaded[g] = NULL;
	s->called[g] = 0;
}

static void
block_reset(struct fstate *s)
{
	for (int g = 0; g < 16; g++) {
		s->r[g].kind = V_UNKNOWN;
		unload(s, g);
	}
}

/* A call or jump to @t (0: not direct) or through the slot at @slot. */
static int
edge_to(struct dis *d, struct fstate *s, const cs_insn *in, uint64_t t,
	uint64_t slotaddr, int call)
{
	struct scan_obj *o = d->o;
	int32_t arg0 = s->r[7].kind == V_CONST && s->r[7].v >= 0 &&
		       s->r[7].v <= INT32_MAX ? (int32_t)s->r[7].v : -1;
	const cs_x86 *x = &in->detail->x86;
	long fi;

	/* call reg, the register loaded from a named slot */
	if (t == 0 && slotaddr == 0 && x->op_count == 1 &&
	    x->operands[0].type == X86_OP_REG) {
		int g = gpr(x->operands[0].reg);

		if (g >= 0 && s->loaded[g] != NULL) {
			s->called[g] = 1;
			return add_edge(s->f, UINT32_MAX, s->loaded[g], arg0);
		}
	}
	if (t == 0 && slotaddr != 0) {
		const struct scan_slot *sl = scanelf_slot(o, slotaddr);

		if (sl == NULL) {
			s->f->indirect++;
			return 0;
		}
		if (sl->name != NULL)
			return add_edge(s->f, UINT32_MAX, sl->name, arg0);
		t = sl->target;
	}
	if (t == 0) {
		s->f->indirect++;
		return 0;
	}
	/* a jump inside the function is control flow, not an edge */
	if (!call && t >= s->f->addr && t < s->f->end)
		return 0;
	fi = scandis_func_at(o, t);
	if (fi < 0)
		return 0;
	return add_edge(s->f, (uint32_t)fi, NULL, arg0);
}

static void
write_regs(struct dis *d, const cs_insn *in, struct fstate *s)
{
	cs_regs rr, rw;
	uint8_t nr = 0, nw = 0;

	if (cs_regs_access(d->cs, in, rr, &nr, rw, &nw) != CS_ERR_OK) {
		block_reset(s);
		return;
	}
	for (uint8_t i = 0; i < nw; i++) {
		int g = gpr(rw[i]);

		if (g >= 0) {
			unload(s, g);
			s->r[g].kind = V_UNKNOWN;
		}
	}
}

/* mov REG, imm / xor REG, REG / mov REG, REG2 (32 or 64 bits): the
 * register set and its value; 0 when @in is none of those. */
static int
set_value(const struct fstate *s, const cs_insn *in, int *reg,
	  struct regval *v)
{
	const cs_x86 *x = &in->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];

	if (x->op_count != 2 || a->type != X86_OP_REG || a->size < 4 ||
	    (*reg = gpr(a->reg)) < 0)
		return 0;
	if (in->id == X86_INS_MOV && b->type == X86_OP_IMM) {
		v->kind = V_CONST;
		v->v = b->imm;
		return 1;
	}
	if (in->id == X86_INS_XOR && b->type == X86_OP_REG && b->reg == a->reg) {
		v->kind = V_CONST;
		v->v = 0;
		return 1;
	}
	if (in->id == X86_INS_MOV && b->type == X86_OP_REG && b->size >= 4 &&
	    gpr(b->reg) >= 0) {
		*v = s->r[gpr(b->reg)];
		return 1;
	}
	return 0;
}

/*
 * A block start: the registers are what every way in agrees on, when
 * every jump to it is a forward jump of this function already seen (and
 * the fall-through, if any); otherwise nothing is known.  This is what
 * resolves glibc's _exit (mov esi, 231; ...; jmp L; ...; L: mov eax, esi;
 * syscall).
 */
static int
join(struct dis *d, struct fstate *s, const cs_insn *in)
{
	uint64_t *hit = bsearch(&in->address, d->targets, d->ntargets,
				sizeof(uint64_t), util_u64_cmp);
	int falls = s->falls;
	struct regval m[16];
	size_t seen = 0;
	int have = 0;

	s->falls = !(in->id == X86_INS_JMP || in->id == X86_INS_RET ||
		     in->id == X86_INS_HLT || in->id == X86_INS_UD2 ||
		     in->id == X86_INS_LJMP);
	if (hit == NULL)
		return 0;
	if (falls) {
		memcpy(m, s->r, sizeof(m));
		have = 1;
	}
	for (size_t i = 0; i < s->nsnaps; i++) {
		if (s->snaps[i].dst != in->address)
			continue;
		seen++;
		if (!have) {
			memcpy(m, s->snaps[i].r, sizeof(m));
			have = 1;
			continue;
		}
		for (int g = 0; g < 16; g++)
			if (m[g].kind != s->snaps[i].r[g].kind ||
			    (m[g].kind == V_CONST &&
			     m[g].v != s->snaps[i].r[g].v))
				m[g].kind = V_UNKNOWN;
	}
	block_reset(s);
	if (have && seen == d->tcount[hit - d->targets])
		memcpy(s->r, m, sizeof(m));
	return 0;
}

/* Pass 3: one function's edges and syscall sites. */
static int
pass3(struct dis *d, const cs_insn *in, void *arg)
{
	struct fstate *s = arg;
	struct scan_obj *o = d->o;
	uint64_t t, m;
	int reg;
	struct regval v;
	int rc;

	if (in == NULL) {
		block_reset(s);
		return 0;
	}
	rc = join(d, s, in);
	if (rc < 0)
		return rc;
	switch (in->id) {
	case X86_INS_SYSCALL:
		o->sites++;
		if (s->r[0].kind == V_CONST && s->r[0].v >= 0 &&
		    s->r[0].v < 4096) {
			if (add_sys(s->f, (int32_t)s->r[0].v) < 0)
				return -ENOMEM;
		} else if (s->r[0].kind == V_ARG0) {
			s->f->sysarg++;
		} else {
			s->f->unresolved++;
		}
		/* the kernel returns in rax and clobbers rcx and r11 */
		s->r[0].kind = s->r[1].kind = s->r[11].kind = V_UNKNOWN;
		return 0;
	case X86_INS_INT:
	case X86_INS_SYSENTER:
		if (in->id == X86_INS_INT &&
		    (in->detail->x86.op_count != 1 ||
		     in->detail->x86.operands[0].imm != 0x80))
			break;
		/* the i386 entry in 64-bit code: counted, never resolved */
		o->sites++;
		s->f->unresolved++;
		s->r[0].kind = V_UNKNOWN;
		return 0;
	case X86_INS_CALL:
		t = direct_target(in);
		m = t == 0 ? rip_operand(in) : 0;
		rc = edge_to(d, s, in, t, m, 1);
		if (rc < 0)
			return rc;
		/* the callee's result and clobbers */
		block_reset(s);
		return 0;
	default:
		break;
	}
	if (is_jump(in)) {
		t = direct_target(in);
		m = t == 0 ? rip_operand(in) : 0;
		if (t > in->address && t < s->f->end) {
			if (util_grow_array(&s->snaps, &s->capsnaps, s->nsnaps,
				      sizeof(*s->snaps), 8) < 0)
				return -ENOMEM;
			s->snaps[s->nsnaps].dst = t;
			memcpy(s->snaps[s->nsnaps++].r, s->r, sizeof(s->r));
		}
		rc = edge_to(d, s, in, t, m, 0);
		if (rc < 0)
			return rc;
		/* a PLT stub is its first jump */
		if (s->sec->plt && in->id == X86_INS_JMP)
			return 1;
		return 0;
	}
	if (in->id == X86_INS_RET)
		return 0;
	/* code addresses and imported functions used as data */
	m = rip_operand(in);
	if (m != 0) {
		const struct scan_slot *sl;

		if (in->id == X86_INS_LEA && scanelf_sec(o, m) != NULL) {
			long fi = scandis_func_at(o, m);

			if (fi >= 0 && o->funcs[fi].addr == m)
				o->funcs[fi].taken = 1;
		} else if ((sl = scanelf_slot(o, m)) != NULL && sl->name) {
			const cs_x86 *x = &in->detail->x86;

			/* mov reg, [rip+slot]: kept for a call through reg;
			 * anything else takes the import's address */
			if (in->id == X86_INS_MOV && x->op_count == 2 &&
			    x->operands[0].type == X86_OP_REG &&
			    gpr(x->operands[0].reg) >= 0) {
				int g = gpr(x->operands[0].reg);

				write_regs(d, in, s);
				s->loaded[g] = sl->name;
				return 0;
			}
			if (add_taken_import(o, &s->cap_taken_imports,
					     sl->name) < 0)
				return -ENOMEM;
		}
	}
	if (set_value(s, in, &reg, &v)) {
		write_regs(d, in, s);
		s->r[reg] = v;
		return 0;
	}
	write_regs(d, in, s);
	return 0;
}

/* Index of the first function symbol at @a (for its name), or -1. */
static const char *
sym_name(const struct scan_obj *o, uint64_t a, size_t *hint)
{
	while (*hint < o->nfsyms && o->fsyms[*hint].addr < a)
		(*hint)++;
	if (*hint < o->nfsyms && o->fsyms[*hint].addr == a) {
		/* prefer a name without leading underscores (free over
		 * __libc_free), then the shortest */
		const char *best = o->fsyms[*hint].name;

		for (size_t i = *hint + 1;
		     i < o->nfsyms && o->fsyms[i].addr == a; i++) {
			const char *n = o->fsyms[i].name;
			int bu = best[0] == '_', nu = n[0] == '_';

			if (bu > nu || (bu == nu && strlen(n) < strlen(best)))
				best = n;
		}
		return best;
	}
	return NULL;
}

/* Mark the functions whose address is taken, and those exported. */
static void
mark_funcs(struct scan_obj *o)
{
	for (size_t i = 0; i < o->ntaken; i++) {
		long fi = scandis_func_at(o, o->taken[i]);

		if (fi >= 0)
			o->funcs[fi].taken = 1;
	}
	for (size_t i = 0; i < o->ndsyms; i++) {
		long fi;

		if (!o->dsyms[i].func)
			continue;
		fi = scandis_func_at(o, o->dsyms[i].addr);
		if (fi >= 0 && o->funcs[fi].addr == o->dsyms[i].addr)
			o->funcs[fi].exported = 1;
	}
}

/* Name PLT stubs after their import, and calls to them after it too. */
static void
plt_names(struct scan_obj *o)
{
	for (size_t i = 0; i < o->nfuncs; i++) {
		struct scan_func *f = &o->funcs[i];
		const struct scan_sec *sec = scanelf_sec(o, f->addr);

		if (sec != NULL && sec->plt && f->name == NULL &&
		    f->nedges == 1 && f->edges[0].import != NULL)
			f->name = f->edges[0].import;
	}
	/* a call to a PLT stub is a call to its import, with the caller's
	 * first argument (syscall(SYS_x, ...) through the PLT) */
	for (size_t i = 0; i < o->nfuncs; i++) {
		struct scan_func *f = &o->funcs[i];

		for (size_t k = 0; k < f->nedges; k++) {
			const struct scan_func *g;
			const struct scan_sec *sec;

			if (f->edges[k].import != NULL)
				continue;
			g = &o->funcs[f->edges[k].local];
			sec = scanelf_sec(o, g->addr);
			if (sec != NULL && sec->plt && g->nedges == 1 &&
			    g->edges[0].import != NULL) {
				/* the stub of an unnamed .plt entry */
				f->edges[k].import = g->edges[0].import;
				f->edges[k].local = UINT32_MAX;
			}
		}
	}
}

int
scandis_object(struct scan_obj *o, char **cause)
{
	struct dis d = { .o = o };
	size_t hint = 0, cap_ti = 0;
	int rc = -ENOMEM;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &d.cs) != CS_ERR_OK) {
		util_cause(cause, "capstone: cannot open x86-64");
		return -EINVAL;
	}
	cs_option(d.cs, CS_OPT_DETAIL, CS_OPT_ON);
	d.insn = cs_malloc(d.cs);
	if (d.insn == NULL)
		goto out;
	/* starts: symbols, entry, init/fini, code addresses as data */
	for (size_t i = 0; i < o->nfsyms; i++)
		if (add_start(&d, o->fsyms[i].addr) < 0)
			goto out;
	for (size_t i = 0; i < o->nroots; i++)
		if (add_start(&d, o->roots[i]) < 0)
			goto out;
	for (size_t i = 0; i < o->ntaken; i++)
		if (add_start(&d, o->taken[i]) < 0)
			goto out;
	for (size_t i = 0; i < o->nslots; i++)
		if (o->slots[i].name == NULL &&
		    add_start(&d, o->slots[i].target) < 0)
			goto out;
	for (size_t i = 0; i < o->nsecs; i++) {
		if (add_start(&d, o->secs[i].addr) < 0)
			goto out;
		rc = walk(&d, &o->secs[i], o->secs[i].addr,
			  o->secs[i].addr + o->secs[i].size, pass1,
			  &o->secs[i], 0);
		if (rc < 0)
			goto out;
		rc = -ENOMEM;
	}
	/* pass 2: a jump out of its function (a tail call, a .cold part)
	 * starts a function of its own */
	d.nstarts = uniq(d.starts, d.nstarts);
	{
		size_t n0 = d.nstarts;

		for (size_t i = 0; i < d.njumps; i++) {
			size_t si = start_index(&d, d.jumps[i].src);
			uint64_t a = d.starts[si], e;

			if (si >= n0 || d.jumps[i].src < a)
				continue;
			e = start_end(&d, si);
			if ((d.jumps[i].dst < a || d.jumps[i].dst >= e) &&
			    add_start(&d, d.jumps[i].dst) < 0)
				goto out;
		}
		d.nstarts = uniq(d.starts, d.nstarts);
	}
	d.targets = malloc((d.njumps ? d.njumps : 1) * sizeof(uint64_t));
	d.tcount = calloc(d.njumps ? d.njumps : 1, sizeof(uint32_t));
	if (d.targets == NULL || d.tcount == NULL)
		goto out;
	for (size_t i = 0; i < d.njumps; i++)
		d.targets[i] = d.jumps[i].dst;
	d.ntargets = uniq(d.targets, d.njumps);
	for (size_t i = 0; i < d.njumps; i++) {
		uint64_t *hit = bsearch(&d.jumps[i].dst, d.targets, d.ntargets,
					sizeof(uint64_t), util_u64_cmp);

		d.tcount[hit - d.targets]++;
	}
	o->funcs = calloc(d.nstarts ? d.nstarts : 1, sizeof(*o->funcs));
	if (o->funcs == NULL)
		goto out;
	for (size_t i = 0; i < d.nstarts; i++) {
		struct scan_func *f = &o->funcs[i];

		f->addr = d.starts[i];
		f->end = start_end(&d, i);
		f->name = sym_name(o, f->addr, &hint);
	}
	o->nfuncs = d.nstarts;
	mark_funcs(o);
	for (size_t i = 0; i < o->nfuncs; i++) {
		struct fstate s = { .f = &o->funcs[i], .o = o,
				    .cap_taken_imports = cap_ti };

		s.sec = scanelf_sec(o, s.f->addr);
		/* rdi holds the first argument at a function's entry */
		s.r[7].kind = V_ARG0;
		s.falls = 1;
		rc = walk(&d, s.sec, s.f->addr, s.f->end, pass3, &s, 1);
		block_reset(&s);
		free(s.snaps);
		cap_ti = s.cap_taken_imports;
		if (rc == 0)
			rc = s.err;
		if (rc < 0)
			goto out;
	}
	plt_names(o);
	rc = 0;
out:
	if (rc == -ENOMEM)
		util_cause(cause, "%s: out of memory", o->path);
	if (d.insn != NULL)
		cs_free(d.insn, 1);
	cs_close(&d.cs);
	free(d.starts);
	free(d.jumps);
	free(d.targets);
	free(d.tcount);
	return rc;
}
