/*
** env.h -- the engine's RWKV_* environment settings, each read through one
** of these functions, so that a value the engine does not follow is said
** (env_notes) by the same rule that set it aside: `RWKV_TPOOL_SPIN_US=abc`
** read as 0 and `RWKV_WEIGHT_CACHE=maybe` as "auto", in silence.
** (RWKV_KERNELS is the kernels' own: kern_env_note.)
*/
#ifndef RWKV_ENV_H
#define RWKV_ENV_H

#include <stddef.h>

/* NAME as a number in [LO, HI] (a whole strtod parse): 1 and *OUT, 0 when
** unset or empty, -1 when set to anything else (*OUT untouched). */
int env_number(const char *name, double lo, double hi, double *out);

/* NAME as one of WORDS (NULL-terminated): its index, -1 when unset or
** empty, -2 when set to anything else. */
int env_word(const char *name, const char *const *words);

/* The words RWKV_WEIGHT_CACHE takes (0-3 off, 4-7 on, 8 auto) and those of
** RWKV_CHECKPOINT_LOAD / RWKV_WEIGHT_CACHE_LOAD (0 map, 1 copy). */
extern const char *const env_cache_words[];
extern const char *const env_load_words[];
/* The ranges of the thread pool's two settings (core/kernels/threadpool.c). */
#define ENV_TPOOL_SPIN_US_MAX 1000
#define ENV_TPOOL_SOLO_MS_MAX 640

/*
** A folder the user names for files to be made in (RWKV_WEIGHT_CACHE_DIR):
** 0 when DIR is a folder, or when only its last part is missing (its parent
** is a folder: the writer makes DIR alone).  Nothing above DIR is ever
** made -- ccache and pip make a cache folder with all its parents, but a
** typo such as /hom/me/cache would then make /hom, as root at the top of
** the disk.  Else -1, and WHY (CAP bytes) says which part is wrong.
*/
int env_dir_check(const char *dir, char *why, size_t cap);

/* One line for each setting above that is set and not followed, and what
** is used instead, '\n' between them; "" when none.  Made at the first
** call (the main thread's, before any model). */
const char *env_notes(void);

#endif
