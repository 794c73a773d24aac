/* SPDX-License-Identifier: PostgreSQL */
/* scanelf.c - ELF objects for pgsc-scan: symbols, relocated slots,
 * executable sections, and DT_NEEDED resolved as the loader would. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pgsc-int.h"
#include "scan.h"

/* Bigger than any library of a PostgreSQL server (libicudata is 30 MiB). */
#define SCAN_MAX_FILE (512u << 20)
#define SCAN_MAX_PATH 4096

/* R_X86_64_* (elf.h has them, spelled out for the reader) */
#define R_64 1
#define R_GLOB_DAT 6
#define R_JUMP_SLOT 7
#define R_RELATIVE 8
#define R_IRELATIVE 37

static int
dsym_cmp_name(const void *a, const void *b)
{
	const struct scan_dsym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	/* the default version first, so a lookup takes it */
	return y->is_default - x->is_default;
}

static int
dsym_cmp_addr(const void *a, const void *b)
{
	const struct scan_dsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* a global name before a local one for the same address */
	return strcmp(x->name, y->name);
}

static int
slot_cmp(const void *a, const void *b)
{
	const struct scan_slot *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
grow(void *v, size_t *cap, size_t n, size_t size)
{
	return util_grow_array(v, cap, n, size, 64);
}

const struct scan_sec *
scanelf_sec(const struct scan_obj *o, uint64_t a)
{
	for (size_t i = 0; i < o->nsecs; i++)
		if (a >= o->secs[i].addr && a - o->secs[i].addr < o->secs[i].size)
			return &o->secs[i];
	return NULL;
}

const struct scan_dsym *
scanelf_dsym(const struct scan_obj *o, const char *name)
{
	size_t lo = 0, hi = o->ndsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(o->dsyms[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < o->ndsyms && strcmp(o->dsyms[lo].name, name) == 0)
		return &o->dsyms[lo];
	return NULL;
}

const struct scan_slot *
scanelf_slot(const struct scan_obj *o, uint64_t a)
{
	struct scan_slot key = { .addr = a };

	if (o->nslots == 0)
		return NULL;
	return bsearch(&key, o->slots, o->nslots, sizeof(key), slot_cmp);
}

void
scanelf_free(struct scan_obj *o)
{
	if (o == NULL)
		return;
	for (size_t i = 0; i < o->nfuncs; i++) {
		free(o->funcs[i].edges);
		free(o->funcs[i].sys);
	}
	if (o->elf != NULL)
		elf_end(o->elf);
	void *owned[] = { o->funcs, o->image, o->path, o->needed, o->roots,
			  o->dsyms, o->fsyms, o->slots, o->taken, o->secs,
			  o->taken_imports, o->interp, o };

	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}

/* A string of the dynamic string table, or NULL. */
static const char *
str_at(Elf *elf, size_t strndx, uint64_t off)
{
	return elf_strptr(elf, strndx, (size_t)off);
}

struct loadctx {
	struct scan_obj *o;
	size_t cap_needed, cap_roots, cap_dsyms, cap_fsyms, cap_slots;
	size_t cap_taken;
	uint64_t init_array, init_array_sz, fini_array, fini_array_sz;
	uint64_t preinit_array, preinit_array_sz;
	/* the symbol versions of .dynsym */
	const unsigned char *versym;  /* 16-bit entries, maybe unaligned */
	size_t nversym;
};

static int
in_range(uint64_t a, uint64_t start, uint64_t size)
{
	return size > 0 && a >= start && a - start < size;
}

/* Append @a to the array *@v of *@n addresses (capacity *@cap). */
static int
push_addr(uint64_t **v, size_t *cap, size_t *n, uint64_t a)
{
	if (grow(v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = a;
	return 0;
}

/* Append *@d to the symbol array *@v of *@n (capacity *@cap). */
static int
push_dsym(struct scan_dsym **v, size_t *cap, size_t *n,
	  const struct scan_dsym *d)
{
	if (grow(v, cap, *n, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = *d;
	return 0;
}

static int
add_root(struct loadctx *c, uint64_t a)
{
	return push_addr(&c->o->roots, &c->cap_roots, &c->o->nroots, a);
}

static int
read_dynamic(struct loadctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct scan_obj *o = c->o;
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Dyn dyn;

	if (d == NULL || sh->sh_entsize == 0)
		return 0;
	for (size_t i = 0; i < d->d_size / sh->sh_entsize; i++) {
		const char *s;

		if (gelf_getdyn(d, (int)i, &dyn) == NULL)
			break;
		switch (dyn.d_tag) {
		case DT_NULL:
			return 0;
		case DT_NEEDED:
			s = str_at(o->elf, sh->sh_link, dyn.d_un.d_val);
			if (s == NULL)
				break;
			if (grow(&o->needed, &c->cap_needed, o->nneeded,
				 sizeof(*o->needed)) < 0)
				return -ENOMEM;
			o->needed[o->nneeded++] = s;
			break;
		case DT_RUNPATH:
		case DT_RPATH:
		case DT_SONAME:
			s = str_at(o->elf, sh->sh_link, dyn.d_un.d_val);
			if (dyn.d_tag == DT_RUNPATH)
				o->runpath = s;
			else if (dyn.d_tag == DT_RPATH)
				o->rpath = s;
			else
				o->soname = s;
			break;
		case DT_INIT:
		case DT_FINI:
			if (add_root(c, dyn.d_un.d_ptr) < 0)
				return -ENOMEM;
			break;
		case DT_INIT_ARRAY: c->init_array = dyn.d_un.d_ptr; break;
		case DT_INIT_ARRAYSZ: c->init_array_sz = dyn.d_un.d_val; break;
		case DT_FINI_ARRAY: c->fini_array = dyn.d_un.d_ptr; break;
		case DT_FINI_ARRAYSZ: c->fini_array_sz = dyn.d_un.d_val; break;
		case DT_PREINIT_ARRAY: c->preinit_array = dyn.d_un.d_ptr; break;
		case DT_PREINIT_ARRAYSZ:
			c->preinit_array_sz = dyn.d_un.d_val;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Symbols of a SHT_DYNSYM or SHT_SYMTAB section: function symbols give
 * starts and names; defined, visible dynamic symbols can be imported. */
static int
read_syms(struct loadctx *c, Elf_Scn *scn, const GElf_Shdr *sh, int dynamic)
{
	struct scan_obj *o = c->o;
	Elf_Data *d = elf_getdata(scn, NULL);
	GElf_Sym sym;
	size_t n;

	if (d == NULL || sh->sh_entsize == 0)
		return 0;
	n = d->d_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		int type, bind, vis;
		const char *name;
		struct scan_dsym ds;

		if (gelf_getsym(d, (int)i, &sym) == NULL)
			break;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		if (sym.st_shndx == SHN_UNDEF)
			continue;
		name = str_at(o->elf, sh->sh_link, sym.st_name);
		if (name == NULL || name[0] == '\0')
			continue;
		ds.name = name;
		ds.addr = sym.st_value;
		ds.func = type == STT_FUNC || type == STT_GNU_IFUNC;
		ds.is_default = 1;
		if (dynamic && c->versym != NULL && i < c->nversym) {
			uint16_t v;

			memcpy(&v, c->versym + 2 * i, 2);
			if (v & 0x8000)
				ds.is_default = 0;
		}
		if (ds.func &&
		    push_dsym(&o->fsyms, &c->cap_fsyms, &o->nfsyms, &ds) < 0)
			return -ENOMEM;
		if (dynamic && (bind == STB_GLOBAL || bind == STB_WEAK ||
				bind == STB_GNU_UNIQUE) &&
		    (vis == STV_DEFAULT || vis == STV_PROTECTED) &&
		    push_dsym(&o->dsyms, &c->cap_dsyms, &o->ndsyms, &ds) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int
add_taken(struct loadctx *c, uint64_t a)
{
	return push_addr(&c->o->taken, &c->cap_taken, &c->o->ntaken, a);
}

static int
is_array_slot(const struct loadctx *c, uint64_t a)
{
	return in_range(a, c->init_array, c->init_array_sz) ||
	       in_range(a, c->fini_array, c->fini_array_sz) ||
	       in_range(a, c->preinit_array, c->preinit_array_sz);
}

/* Relocations (RELA): named slots, code addresses stored as data. */
static int
read_relocs(struct loadctx *c, Elf_Scn *scn, const GElf_Shdr *sh)
{
	struct scan_obj *o = c->o;
	Elf_Data *d = elf_getdata(scn, NULL);
	Elf_Scn *symscn = elf_getscn(o->elf, sh->sh_link);
	Elf_Data *symd = NULL;
	GElf_Shdr symsh;
	GElf_Rela r;

	if (d == NULL || sh->sh_entsize == 0)
		return 0;
	if (symscn != NULL && gelf_getshdr(symscn, &symsh) != NULL &&
	    (symsh.sh_type == SHT_DYNSYM || symsh.sh_type == SHT_SYMTAB))
		symd = elf_getdata(symscn, NULL);
	for (size_t i = 0; i < d->d_size / sh->sh_entsize; i++) {
		unsigned type;
		size_t symi;
		struct scan_slot sl = { 0 };
		GElf_Sym sym;

		if (gelf_getrela(d, (int)i, &r) == NULL)
			break;
		type = (unsigned)GELF_R_TYPE(r.r_info);
		symi = GELF_R_SYM(r.r_info);
		sl.addr = r.r_offset;
		switch (type) {
		case R_RELATIVE:
		case R_IRELATIVE:
			sl.target = (uint64_t)r.r_addend;
			if (is_array_slot(c, r.r_offset)) {
				if (add_root(c, sl.target) < 0)
					return -ENOMEM;
			} else if (type == R_RELATIVE &&
				   scanelf_sec(o, sl.target) != NULL &&
				   add_taken(c, sl.target) < 0) {
				return -ENOMEM;
			}
			break;
		case R_64:
		case R_GLOB_DAT:
		case R_JUMP_SLOT:
			if (symd == NULL || symi == 0 ||
			    gelf_getsym(symd, (int)symi, &sym) == NULL)
				continue;
			sl.name = str_at(o->elf, symsh.sh_link, sym.st_name);
			if (sl.name == NULL || sl.name[0] == '\0')
				continue;
			break;
		default:
			continue;
		}
		if (grow(&o->slots, &c->cap_slots, o->nslots,
			 sizeof(*o->slots)) < 0)
			return -ENOMEM;
		o->slots[o->nslots++] = sl;
	}
	return 0;
}

/* PT_INTERP, read from the program headers with bounds checks. */
static int
read_interp(struct scan_obj *o)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(o->elf, &n) != 0)
		return 0;
	for (size_t i = 0; i < n && i < 4096; i++) {
		if (gelf_getphdr(o->elf, (int)i, &ph) == NULL)
			break;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_offset > o->image_len || ph.p_filesz == 0 ||
		    ph.p_filesz > o->image_len - ph.p_offset ||
		    ph.p_filesz > SCAN_MAX_PATH)
			return 0;
		o->interp = util_strndup((const char *)o->image + ph.p_offset,
					 ph.p_filesz);
		return o->interp == NULL ? -ENOMEM : 0;
	}
	return 0;
}

/* Load from @buf (malloc'd, @len bytes), which the object takes over. */
/* Does [@off, @off + @n) lie within @len bytes? */
static int
within(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/*
 * Is the object whole: its section and program header tables, every
 * section with contents and every segment inside the file?  A truncated
 * object (a copy cut short) had no sections left for libelf and was
 * scanned as 0 functions, exit 0.  0, or -EINVAL with a
 * cause.
 */
static int
whole(struct scan_obj *o, const GElf_Ehdr *eh, const char *path,
      char **cause)
{
	size_t len = o->image_len, n = 0;
	Elf_Scn *scn = NULL;
	uint64_t need = 0;

	if (eh->e_shoff != 0 &&
	    !within(eh->e_shoff, (uint64_t)(eh->e_shnum ? eh->e_shnum : 1) *
		    eh->e_shentsize, len))
		need = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (!need && !within(eh->e_phoff, (uint64_t)eh->e_phnum *
			     eh->e_phentsize, len))
		need = eh->e_phoff + (uint64_t)eh->e_phnum * eh->e_phentsize;
	while (!need && (scn = elf_nextscn(o->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type != SHT_NOBITS &&
		    !within(sh.sh_offset, sh.sh_size, len))
			need = sh.sh_offset + sh.sh_size;
	}
	for (size_t i = 0; !need && elf_getphdrnum(o->elf, &n) == 0 && i < n;
	     i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(o->elf, (int)i, &ph) != NULL &&
		    !within(ph.p_offset, ph.p_filesz, len))
			need = ph.p_offset + ph.p_filesz;
	}
	if (!need)
		return 0;
	util_cause(cause, "%s: truncated: its headers need %llu bytes, the "
		   "file has %zu; not scanned", path,
		   (unsigned long long)need, len);
	return -EINVAL;
}

static int
load_owned(const char *path, unsigned char *buf, size_t len,
	   enum scan_kind kind, struct scan_obj **out, char **cause)
{
	struct loadctx c = { 0 };
	struct scan_obj *o;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx, cap_secs = 0;
	int rc = -ENOMEM;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		util_cause(cause, "%s: libelf: %s", path, elf_errmsg(-1));
		free(buf);
		return -EINVAL;
	}
	o = calloc(1, sizeof(*o));
	if (o == NULL) {
		free(buf);
		return -ENOMEM;
	}
	c.o = o;
	o->kind = kind;
	o->image = buf;
	o->image_len = len;
	o->path = strdup(path);
	if (o->path == NULL)
		goto fail;
	o->base = strrchr(o->path, '/') ? strrchr(o->path, '/') + 1 : o->path;
	o->elf = elf_memory((char *)o->image, len);
	rc = -EINVAL;
	if (o->elf == NULL || elf_kind(o->elf) != ELF_K_ELF ||
	    gelf_getehdr(o->elf, &eh) == NULL) {
		util_cause(cause, "%s: not an ELF object", path);
		goto fail;
	}
	if (gelf_getclass(o->elf) != ELFCLASS64 || eh.e_machine != EM_X86_64 ||
	    (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)) {
		util_cause(cause, "%s: not an x86-64 executable or shared "
			   "object (only x86-64 is scanned)", path);
		goto fail;
	}
	if (whole(o, &eh, path, cause) < 0)
		goto fail;
	if (elf_getshdrstrndx(o->elf, &shstrndx) != 0) {
		util_cause(cause, "%s: no section name table", path);
		goto fail;
	}
	o->entry = eh.e_entry;
	rc = -ENOMEM;
	if (read_interp(o) < 0)
		goto fail;
	/* executable sections, the dynamic section and .gnu.version first:
	 * relocations and symbols need them */
	while ((scn = elf_nextscn(o->elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNAMIC) {
			if (read_dynamic(&c, scn, &sh) < 0)
				goto fail;
		} else if (sh.sh_type == SHT_GNU_versym) {
			d = elf_getdata(scn, NULL);
			if (d != NULL && d->d_buf != NULL) {
				c.versym = d->d_buf;
				c.nversym = d->d_size / 2;
			}
		} else if (sh.sh_type == SHT_PROGBITS &&
			   (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0) {
			d = elf_getdata(scn, NULL);
			if (d == NULL || d->d_buf == NULL ||
			    d->d_size != sh.sh_size ||
			    sh.sh_addr + sh.sh_size < sh.sh_addr)
				continue;
			if (grow(&o->secs, &cap_secs, o->nsecs,
				 sizeof(*o->secs)) < 0)
				goto fail;
			name = elf_strptr(o->elf, shstrndx, sh.sh_name);
			o->secs[o->nsecs].addr = sh.sh_addr;
			o->secs[o->nsecs].size = sh.sh_size;
			o->secs[o->nsecs].data = d->d_buf;
			o->secs[o->nsecs].plt = name != NULL &&
				strncmp(name, ".plt", 4) == 0;
			o->nsecs++;
		}
	}
	scn = NULL;
	while ((scn = elf_nextscn(o->elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB) {
			if (read_syms(&c, scn, &sh, sh.sh_type == SHT_DYNSYM) < 0)
				goto fail;
		} else if (sh.sh_type == SHT_RELA) {
			if (read_relocs(&c, scn, &sh) < 0)
				goto fail;
		}
	}
	if (o->fsyms != NULL)
		qsort(o->fsyms, o->nfsyms, sizeof(*o->fsyms), dsym_cmp_addr);
	if (o->dsyms != NULL)
		qsort(o->dsyms, o->ndsyms, sizeof(*o->dsyms), dsym_cmp_name);
	if (o->slots != NULL)
		qsort(o->slots, o->nslots, sizeof(*o->slots), slot_cmp);
	if (o->taken != NULL)
		qsort(o->taken, o->ntaken, sizeof(*o->taken), util_u64_cmp);
	if (eh.e_entry != 0 && add_root(&c, eh.e_entry) < 0)
		goto fail;
	*out = o;
	return 0;
fail:
	if (rc == -ENOMEM)
		util_cause(cause, "%s: out of memory", path);
	scanelf_free(o);
	return rc;
}

int
scanelf_load_mem(const char *path, const void *data, size_t len,
		 enum scan_kind kind, struct scan_obj **out, char **cause)
{
	unsigned char *buf = malloc(len ? len : 1);

	*out = NULL;
	if (buf == NULL)
		return -ENOMEM;
	memcpy(buf, data, len);
	return load_owned(path, buf, len, kind, out, cause);
}

/* The whole file, bounded. */
static int
read_file(const char *path, unsigned char **buf, size_t *len, char **cause)
{
	char *b;
	int rc = util_read_file(path, SCAN_MAX_FILE, &b, len, cause);

	*buf = (unsigned char *)b;
	return rc;
}

int
scanelf_load(const char *path, enum scan_kind kind, struct scan_obj **out,
	     char **cause)
{
	unsigned char *buf;
	size_t len = 0;
	int rc;

	*out = NULL;
	rc = read_file(path, &buf, &len, cause);
	if (rc < 0)
		return rc;
	return load_owned(path, buf, len, kind, out, cause);
}

/* ------------------------------------------------------------------ */
/* DT_NEEDED, resolved as glibc's loader does                          */
/* ------------------------------------------------------------------ */

/* Is @path an x86-64 ELF file (the loader skips other kinds)? */
static int
elf_ok(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, h, sizeof(h));
	close(fd);
	return n == (ssize_t)sizeof(h) && memcmp(h, "\177ELF", 4) == 0 &&
	       h[4] == ELFCLASS64 && h[18] == EM_X86_64;
}

/* Try each directory of a colon list, with $ORIGIN expanded. */
static int
try_dirs(const char *list, const char *origin, const char *root,
	 const char *name, char **out)
{
	const char *p = list;

	while (p != NULL && *p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		struct strbuf sb = { 0 };

		if (n > 0 && n < SCAN_MAX_PATH) {
			if (n >= 7 && (strncmp(p, "$ORIGIN", 7) == 0 ||
				       strncmp(p, "${ORIGIN}", 9) == 0)) {
				size_t skip = p[1] == '{' ? 9 : 7;

				strbuf_addstr(&sb, origin);
				if (n > skip)
					strbuf_add(&sb, p + skip, n - skip);
			} else {
				strbuf_addstr(&sb, root);
				strbuf_add(&sb, p, n);
			}
			strbuf_addf(&sb, "/%s", name);
			if (!sb.oom && elf_ok(sb.buf)) {
				*out = sb.buf;
				return 0;
			}
		}
		strbuf_free(&sb);
		p = end ? end + 1 : NULL;
	}
	return -ENOENT;
}

int
scanelf_ldcache_parse(const unsigned char *data, size_t len,
		      int (*cb)(void *arg, const char *name, const char *path),
		      void *arg)
{
	static const char magic_new[] = "glibc-ld.so.cache1.1";
	static const char magic_old[] = "ld.so-1.7.0";
	size_t base = 0, hdr = 48, ent = 24;
	uint32_t nlibs;
	int count = 0;

	/* the old format: magic (11 bytes, padded to 12), nlibs, entries */
	if (len >= 16 && memcmp(data, magic_old, sizeof(magic_old) - 1) == 0) {
		uint32_t nold;

		memcpy(&nold, data + 12, 4);
		if (nold > len / 12)
			return -EINVAL;
		base = 16 + (size_t)nold * 12;
		base = (base + 7) & ~(size_t)7;
	}
	if (base > len || len - base < hdr ||
	    memcmp(data + base, magic_new, sizeof(magic_new) - 1) != 0)
		return -EINVAL;
	memcpy(&nlibs, data + base + 20, 4);
	if (nlibs > (len - base - hdr) / ent)
		return -EINVAL;
	for (uint32_t i = 0; i < nlibs; i++) {
		const unsigned char *e = data + base + hdr + (size_t)i * ent;
		int32_t flags;
		uint32_t key, value;
		const char *k, *v;

		memcpy(&flags, e, 4);
		memcpy(&key, e + 4, 4);
		memcpy(&value, e + 8, 4);
		/* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
		if (flags != 0x0303)
			continue;
		if (key >= len - base || value >= len - base)
			return -EINVAL;
		k = (const char *)data + base + key;
		v = (const char *)data + base + value;
		if (memchr(k, '\0', len - base - key) == NULL ||
		    memchr(v, '\0', len - base - value) == NULL)
			return -EINVAL;
		count++;
		if (cb(arg, k, v) != 0)
			break;
	}
	return count;
}

struct cache_find {
	const char *name;
	char *found;
};

static int
cache_cb(void *arg, const char *name, const char *path)
{
	struct cache_find *f = arg;

	if (strcmp(name, f->name) != 0 || !elf_ok(path))
		return 0;
	f->found = strdup(path);
	return 1;
}

int
scanelf_find_needed(const struct scan_obj *from, const char *name,
		    const char *root, char **out)
{
	static const char defaults[] =
		"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:"
		"/lib64:/usr/lib64:/lib:/usr/lib";
	char origin[SCAN_MAX_PATH];
	const char *slash;
	unsigned char *buf = NULL;
	size_t len = 0;
	struct strbuf cpath = { 0 };
	int rc;

	*out = NULL;
	if (strchr(name, '/') != NULL) {
		*out = strdup(name);
		return *out && elf_ok(name) ? 0 : -ENOENT;
	}
	slash = strrchr(from->path, '/');
	snprintf(origin, sizeof(origin), "%.*s",
		 slash ? (int)(slash - from->path) : 1,
		 slash ? from->path : ".");
	/* DT_RPATH only counts when there is no DT_RUNPATH (ld.so(8)); the
	 * server's LD_LIBRARY_PATH is not known here */
	if (from->runpath == NULL && from->rpath != NULL &&
	    try_dirs(from->rpath, origin, root, name, out) == 0)
		return 0;
	if (from->runpath != NULL &&
	    try_dirs(from->runpath, origin, root, name, out) == 0)
		return 0;
	strbuf_addf(&cpath, "%s/etc/ld.so.cache", root);
	if (!cpath.oom && read_file(cpath.buf, &buf, &len, NULL) == 0) {
		struct cache_find f = { .name = name };

		scanelf_ldcache_parse(buf, len, cache_cb, &f);
		free(buf);
		if (f.found != NULL) {
			strbuf_free(&cpath);
			*out = f.found;
			return 0;
		}
	}
	strbuf_free(&cpath);
	rc = try_dirs(defaults, origin, root, name, out);
	return rc;
}
