/*
** fileio.h -- opening the files rwkv-tui reads and creating the files it
** writes, safely.
**
** Reading.  Every file that must be a regular file (a model, a state file,
** a vocabulary, an import, paths stored in the database) is opened with
** rwkv_open_regular: a FIFO, a device, a socket or a directory given by
** mistake (or planted) is refused at once with one line such as
**     "x.pth: not a regular file (a FIFO)"
** instead of blocking forever in open(2) or read(2) (a FIFO with no writer)
** or reading an endless device.  The open itself is non-blocking, so even
** a FIFO swapped in between the check and the open cannot hang it.
**
** Writing.  Every file rwkv-tui creates goes through rwkv_atomic_*: the data
** is written to a new, exclusively created temporary file in the target's
** directory (O_CREAT|O_EXCL|O_NOFOLLOW, a random name, so a symlink or file
** planted under a predictable name is never followed, truncated or
** reused), optionally fsync'ed, and renamed over PATH only once complete.
** So PATH is either its old contents or the complete new file, never a
** truncated one, and an existing PATH that is not a regular file (a
** device, a FIFO, a directory) is refused, not replaced.  A symlink at PATH
** is written THROUGH, as cp(1) and a shell's > do (rwkv_output_target): the
** temporary file is made in the folder of the file the link leads to and
** renamed over that file -- there or not, a dangling link's target is
** created --, so the link stays a link and names the new contents.
**
** Use:   rwkv_atomic *a;
**        if (rwkv_atomic_create(path, 0600, RWKV_ATOMIC_SYNC, &a, &err) != RWKV_OK) ...
**        write(rwkv_atomic_fd(a), ...)   or   fprintf(rwkv_atomic_stream(a, &err), ...)
**        rwkv_atomic_commit(a, &err);    -- or rwkv_atomic_abort(a) to give up
**
** Owner: this file and fileio.c.  Clients: core/io/mapfile.c (models, state
** files), core/text/tokenizer.c (vocabularies), core/io/ckpt_write.c (model files),
** cli/cmd_eval.c (--out, --state-out); meant for every other file we read
** or create (imports, exports, saved states).  Thread-safe (no shared state).
*/
#ifndef RWKV_FILEIO_H
#define RWKV_FILEIO_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../status.h"

/*
** Open PATH read-only (O_CLOEXEC|O_NOCTTY) if it is a regular file (symlinks
** are followed).  On success *FD (OUT) is a blocking descriptor owned by
** the caller (close(2) it).  Errors, one line naming PATH: RWKV_EIO for
** "cannot open: <strerror>" and "not a regular file (a FIFO)" (or a
** directory, a character device, ...).  *FD is -1 on failure.
*/
int rwkv_open_regular(const char *path, int *fd, rwkv_err *err);

/*
** Read N bytes of FD at offset OFF into DST (pread, at most 1 GiB a call --
** Linux moves at most ~2 GiB per read -- retried on EINTR and on short
** reads).  0, or -1 when a read fails or the file ends first.  STOP (may be
** NULL), read between calls: nonzero gives up (-1), for a reader that
** another thread's failure makes pointless.
*/
int rwkv_pread_full(int fd, void *dst, uint64_t n, uint64_t off, const int *stop);

/* The same as a stdio stream opened "rb"; *OUT (OUT) owned by the caller
** (fclose). */
int rwkv_fopen_regular(const char *path, FILE **out, rwkv_err *err);
/* rwkv_fopen_regular, and a FIFO too (`import <(cmd)`, /dev/fd/N): for a
** file read once from start to end.  A FIFO no writer holds open reads as
** empty rather than waiting for one. */
int rwkv_fopen_stream(const char *path, FILE **out, rwkv_err *err);

/* "a FIFO", "a directory", "a character device", ... for a st_mode that is
** not a regular file; "a regular file" for one.  Static string. */
const char *rwkv_file_kind(mode_t mode);

/*
** The folder part of PATH into DIR (CAP bytes, truncated to fit): "." for
** a bare name, "/" for a file in the root.  For the checks made on the
** folder a file lives or will live in.
*/
void rwkv_path_dir(const char *path, char *dir, size_t cap);

/*
** The one rule for where a write to PATH lands (every rwkv_atomic writer,
** and every check of what may be written: rwkv_same_file,
** store_output_check): PATH itself, or -- a symlink at PATH -- the file it
** leads to, followed link by link (a relative link read from the link's
** own folder, at most 40 links), whether that file exists or not -- except
** a link in a sticky, world-writable folder (/tmp) that neither we nor the
** folder's owner made (the kernel's protected_symlinks rule): there the
** link itself is the target, replaced, never written through.  Into
** OUT (CAP bytes); 0, or -1 with errno (ELOOP, ENAMETOOLONG, or readlink's).
** "x" -> "../states/p.pth" gives "DIR/../states/p.pth" for "DIR/x".
*/
int rwkv_output_target(const char *path, char *out, size_t cap);

/*
** An output must never replace an input of the same command (eval --out
** naming the model, /save naming the model in use, --out and --state-out
** naming one file).  1 when writing OUT would replace the file IN names:
** OUT's target (rwkv_output_target: a symlink at OUT is written through)
** is IN itself (device and inode), or neither exists yet and both name
** one entry of one directory.  0 otherwise, "-" (stdout), NULL and an OUT
** that is a character device or a FIFO (written in place: it replaces
** nothing) included.  Both borrowed.
*/
int rwkv_same_file(const char *out, const char *in);

typedef struct rwkv_atomic rwkv_atomic;

/* fsync the file before the rename and the directory after it (for data
** that matters: databases, saved states, model files). */
#define RWKV_ATOMIC_SYNC 1

/*
** Start creating PATH with permission bits MODE (umask applies; 0600 for
** private data, 0644 for files the user asked for): a new temporary file
** ".NAME.XXXXXXXX.tmp" in PATH's directory.  FLAGS: 0 or RWKV_ATOMIC_SYNC.
** *OUT (OUT) is owned by the caller until rwkv_atomic_commit or
** rwkv_atomic_abort frees it.  Errors (RWKV_EIO, one line naming PATH):
** PATH exists and is not a regular file; the directory is missing or not
** writable.  A character device (/dev/null) is written in place: commit
** just closes it.
*/
int rwkv_atomic_create(const char *path, unsigned mode, int flags, rwkv_atomic **out,
                       rwkv_err *err);
/* The temporary file's descriptor (write / pwrite to it).  Borrowed; valid
** until commit or abort. */
int rwkv_atomic_fd(const rwkv_atomic *a);
/*
** A stdio stream on the temporary file ("wb"), made on the first call;
** borrowed, valid until commit or abort (do not fclose it).  NULL with ERR
** set if it cannot be made.  Mixing it with rwkv_atomic_fd writes is the
** caller's business.
*/
FILE *rwkv_atomic_stream(rwkv_atomic *a, rwkv_err *err);
/*
** Finish: flush the stream (if any) and report any earlier write error on
** it -- with the failing write(2)'s own errno, even when stdio wrote that
** block past its buffer and the flush finds nothing left to fail on --,
** fsync (RWKV_ATOMIC_SYNC), close and rename over PATH.  Frees A
** whatever the outcome; on failure the temporary file is removed and PATH
** is untouched ("PATH: cannot write: No space left on device").
*/
int rwkv_atomic_commit(rwkv_atomic *a, rwkv_err *err);
/* Give up: close and remove the temporary file, free A.  NULL is fine. */
void rwkv_atomic_abort(rwkv_atomic *a);
/* PATH as given to rwkv_atomic_create.  Borrowed; valid until commit/abort. */
const char *rwkv_atomic_path(const rwkv_atomic *a);
/* The whole of a file at once: LEN bytes of BUF to PATH through the calls
** above (MODE, FLAGS as rwkv_atomic_create's): whole or not at all. */
int rwkv_write_file(const char *path, const void *buf, size_t len, unsigned mode, int flags,
                    rwkv_err *err);

#endif
