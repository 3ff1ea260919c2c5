/*
** tokenizer.h -- RWKV World trie tokenizer and the byte-level tokenizer.
**
** World: vocabulary file rwkv_vocab_v20230424.txt (lines "<id> <python
** literal> <byte length>"), greedy longest byte match from the left, ids
** identical to the reference's TRIE_TOKENIZER.  Bytes: token id = byte value
** (vocab-256 models).  Id 0 is END_OF_TEXT and decodes to nothing.
*/
#ifndef RWKV_TOKENIZER_H
#define RWKV_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "../status.h"

typedef struct tok tok;

/* Load the World vocabulary at PATH. *OUT owned by caller (tok_close). */
int  tok_open_world(const char *path, tok **out, rwkv_err *err);
/* The same from SIZE bytes at DATA (borrowed, only read during the call);
** WHAT names the input in error messages ("WHAT:LINE: what is wrong"). */
int  tok_open_world_mem(const char *data, size_t size, const char *what, tok **out,
                        rwkv_err *err);
/* The byte-level tokenizer (vocab 256): id = byte value, a bijection (here
** id 0 is the byte 00, not end of text). */
int  tok_create_bytes(tok **out, rwkv_err *err);
void tok_close(tok *t);                                 /* NULL is fine */

int    tok_is_bytes(const tok *t);
size_t tok_vocab_size(const tok *t);   /* largest id + 1 (65530 for World) */

/*
** Encode LEN bytes of TEXT (any bytes, not only valid UTF-8).  *IDS is
** malloc'ed, owned by the caller (free()), *N ids.
*/
int tok_encode(const tok *t, const char *text, size_t len, int32_t **ids,
               size_t *n, rwkv_err *err);

/* The bytes of token ID (borrowed, valid until tok_close); *LEN 0 for id 0.
** Returns RWKV_EINVAL for an id outside the vocabulary. */
int tok_piece(const tok *t, int32_t id, const char **bytes, size_t *len);

/*
** Concatenated bytes of IDS into *TEXT (malloc'ed, NUL terminated, owned by
** the caller), *LEN bytes.  Raw bytes: may be invalid UTF-8.
*/
int tok_decode(const tok *t, const int32_t *ids, size_t n, char **text,
               size_t *len, rwkv_err *err);

/*
** Streaming decode that never splits a UTF-8 sequence: feed token ids, get
** back only complete characters; an incomplete tail waits for the next
** token.  Bytes that can never become valid UTF-8 are emitted as U+FFFD.
*/
typedef struct tok_stream {
    unsigned char pend[8];   /* bytes of an incomplete character */
    size_t        npend;
} tok_stream;

void tok_stream_init(tok_stream *st);
/* Append token ID's bytes; write the complete UTF-8 text now available to
** OUT (capacity CAP, NUL terminated).  Returns bytes written, or -1 if CAP is
** too small (need at most piece length + 16; state then unchanged), or -2 if
** ID is not in the vocabulary (state unchanged). */
long tok_stream_push(tok_stream *st, const tok *t, int32_t id, char *out, size_t cap);
/* End of stream: flush a dangling incomplete sequence as U+FFFD. */
long tok_stream_flush(tok_stream *st, char *out, size_t cap);

#endif
