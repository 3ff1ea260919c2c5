/*
** test_fileio.c -- core/io/fileio.h (rwkv_open_regular, rwkv_atomic_*) and the
** guard table of core/io/mapfile.h.
**
** Reading: regular files open; a FIFO with no writer, a directory and a
** character device are refused at once with one line naming the kind (an
** alarm turns a regression that blocks into a failure, not a hang).
** Writing: the file appears only on commit, complete, with the asked mode;
** abort and failed commits leave PATH as it was and no temporary behind; a
** symlink planted at PATH.tmp or at PATH is never written through; an
** existing FIFO at PATH is refused.  Mapping: mapfile_open enters its range
** in the guard table and mapfile_close removes it; mapfile_read reads the
** mapped file's bytes, refusing a range outside it or past a shrunk end.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/io/fileio.h"
#include "../../core/io/mapfile.h"
#include "../harness.h"

static int
write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* The whole file as a string into BUF ("" if unreadable). */
static const char *
read_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = 0;

    buf[0] = '\0';
    if (f != NULL) {
        n = fread(buf, 1, cap - 1, f);
        fclose(f);
    }
    buf[n] = '\0';
    return buf;
}

/* Directory entries ending in ".tmp" (the helper's temporaries). */
static int
count_tmp(void)
{
    DIR *d = opendir(test_tmp_dir());
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        n += l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0;
    }
    closedir(d);
    return n;
}

static void
on_alarm(int sig)
{
    static const char m[] = "FAIL test_fileio: blocked (a FIFO open or read hung)\n";
    (void)sig;
    if (write(STDOUT_FILENO, m, sizeof m - 1) < 0)
        _exit(3);
    _exit(2);
}

static void
test_open_regular(void)
{
    char p[512], q[512];
    rwkv_err err;
    int fd = 7;
    FILE *f;
    char line[64];

    test_tmp_path(p, sizeof p, "plain.txt");
    TEST_COND("write", write_file(p, "hello\n") == 0);
    TEST_COND("regular file opens", rwkv_open_regular(p, &fd, &err) == RWKV_OK && fd >= 0);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        TEST_COND("blocking descriptor", fl >= 0 && (fl & O_NONBLOCK) == 0);
        TEST_COND("close-on-exec", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
        close(fd);
    }
    TEST_COND("stream opens", rwkv_fopen_regular(p, &f, &err) == RWKV_OK && f != NULL);
    if (f != NULL) {
        TEST_COND("stream reads", fgets(line, sizeof line, f) && strcmp(line, "hello\n") == 0);
        fclose(f);
    }
    /* a symlink to a regular file is followed */
    test_tmp_path(q, sizeof q, "link.txt");
    TEST_COND("symlink", symlink(p, q) == 0);
    TEST_COND("link to a file opens", rwkv_open_regular(q, &fd, &err) == RWKV_OK);
    if (fd >= 0)
        close(fd);

    test_tmp_path(p, sizeof p, "fifo");
    TEST_COND("mkfifo", mkfifo(p, 0600) == 0);
    alarm(20);
    TEST_CONDF(rwkv_open_regular(p, &fd, &err) == RWKV_EIO && fd == -1 &&
                   strstr(err.msg, "fifo: not a regular file (a FIFO)"),
               "FIFO: %s", err.msg);
    TEST_CONDF(rwkv_fopen_regular(p, &f, &err) == RWKV_EIO && f == NULL &&
                   strstr(err.msg, "(a FIFO)"), "FIFO stream: %s", err.msg);
    /* a link to a FIFO is refused the same way */
    test_tmp_path(q, sizeof q, "fifo-link");
    TEST_COND("symlink to FIFO", symlink(p, q) == 0);
    TEST_CONDF(rwkv_open_regular(q, &fd, &err) == RWKV_EIO && strstr(err.msg, "(a FIFO)"),
               "link to FIFO: %s", err.msg);
    alarm(0);
    TEST_CONDF(rwkv_open_regular(test_tmp_dir(), &fd, &err) == RWKV_EIO &&
                   strstr(err.msg, "not a regular file (a directory)"), "dir: %s", err.msg);
    TEST_CONDF(rwkv_open_regular("/dev/null", &fd, &err) == RWKV_EIO &&
                   strstr(err.msg, "/dev/null: not a regular file (a character device)"),
               "device: %s", err.msg);
    test_tmp_path(p, sizeof p, "missing");
    TEST_CONDF(rwkv_open_regular(p, &fd, &err) == RWKV_EIO &&
                   strstr(err.msg, "missing: cannot open: No such file"), "missing: %s",
               err.msg);
    TEST_COND("kind names", strcmp(rwkv_file_kind(S_IFIFO), "a FIFO") == 0 &&
                                strcmp(rwkv_file_kind(S_IFSOCK), "a socket") == 0 &&
                                strcmp(rwkv_file_kind(S_IFBLK), "a block device") == 0);
}

static void
test_atomic(void)
{
    char p[512], q[512], t[600], buf[256];
    rwkv_atomic *a;
    rwkv_err err;
    struct stat st;
    FILE *f;

    /* create -> nothing at PATH until commit; mode as asked */
    test_tmp_path(p, sizeof p, "out.bin");
    TEST_COND("create", rwkv_atomic_create(p, 0600, RWKV_ATOMIC_SYNC, &a, &err) == RWKV_OK);
    TEST_COND("one temporary", count_tmp() == 1);
    TEST_COND("no PATH before commit", stat(p, &st) != 0);
    TEST_COND("write", write(rwkv_atomic_fd(a), "abc", 3) == 3);
    TEST_COND("path", strcmp(rwkv_atomic_path(a), p) == 0);
    TEST_COND("commit", rwkv_atomic_commit(a, &err) == RWKV_OK);
    TEST_COND("content", strcmp(read_file(p, buf, sizeof buf), "abc") == 0);
    TEST_COND("mode 0600", stat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
    TEST_COND("no temporary left", count_tmp() == 0);

    /* replace through a stream; abort keeps the old file */
    TEST_COND("create 2", rwkv_atomic_create(p, 0644, 0, &a, &err) == RWKV_OK);
    f = rwkv_atomic_stream(a, &err);
    TEST_COND("stream", f != NULL && fputs("new", f) >= 0);
    rwkv_atomic_abort(a);
    TEST_COND("abort keeps PATH", strcmp(read_file(p, buf, sizeof buf), "abc") == 0);
    TEST_COND("abort leaves no temporary", count_tmp() == 0);
    TEST_COND("create 3", rwkv_atomic_create(p, 0644, 0, &a, &err) == RWKV_OK);
    f = rwkv_atomic_stream(a, &err);
    TEST_COND("stream 3", f != NULL && fprintf(f, "replaced %d", 42) > 0);
    TEST_COND("commit 3", rwkv_atomic_commit(a, &err) == RWKV_OK);
    TEST_COND("replaced", strcmp(read_file(p, buf, sizeof buf), "replaced 42") == 0);
    rwkv_atomic_abort(NULL);

    /* a symlink planted at PATH.tmp is not followed */
    test_tmp_path(q, sizeof q, "victim");
    TEST_COND("victim", write_file(q, "keep") == 0);
    snprintf(t, sizeof t, "%s.tmp", p);
    TEST_COND("plant PATH.tmp", symlink(q, t) == 0);
    TEST_COND("create past the link", rwkv_atomic_create(p, 0644, 0, &a, &err) == RWKV_OK);
    TEST_COND("write 4", write(rwkv_atomic_fd(a), "x", 1) == 1);
    TEST_COND("commit 4", rwkv_atomic_commit(a, &err) == RWKV_OK);
    TEST_COND("victim untouched", strcmp(read_file(q, buf, sizeof buf), "keep") == 0);
    TEST_COND("planted link untouched", lstat(t, &st) == 0 && S_ISLNK(st.st_mode));
    unlink(t);

    /* a symlink AT PATH is written through (rwkv_output_target): the link
    ** stays, its target gets the new file */
    test_tmp_path(t, sizeof t, "linked.bin");
    TEST_COND("link at PATH", symlink(q, t) == 0);
    TEST_COND("create 5", rwkv_atomic_create(t, 0644, 0, &a, &err) == RWKV_OK);
    TEST_COND("write 5", write(rwkv_atomic_fd(a), "yy", 2) == 2);
    TEST_COND("commit 5", rwkv_atomic_commit(a, &err) == RWKV_OK);
    TEST_COND("target written", strcmp(read_file(q, buf, sizeof buf), "yy") == 0);
    TEST_COND("PATH still a link", lstat(t, &st) == 0 && S_ISLNK(st.st_mode));
    /* a chain of links, relative ones read from their own folder; a
    ** dangling one names the file to create; a loop is refused */
    {
        char l2[512], tgt[1024], want[1024];
        test_tmp_path(l2, sizeof l2, "chain.bin");
        TEST_COND("chain", symlink("linked.bin", l2) == 0);
        TEST_COND("chain resolves", rwkv_output_target(l2, tgt, sizeof tgt) == 0 &&
                                        strcmp(tgt, q) == 0);
        unlink(l2);
        TEST_COND("dangling", symlink("new-target.bin", l2) == 0);
        test_tmp_path(want, sizeof want, "new-target.bin");
        TEST_COND("dangling resolves", rwkv_output_target(l2, tgt, sizeof tgt) == 0 &&
                                           strcmp(tgt, want) == 0);
        TEST_COND("create through dangling", rwkv_write_file(l2, "z", 1, 0644, 0, &err) ==
                                                 RWKV_OK);
        TEST_COND("dangling target made", strcmp(read_file(want, buf, sizeof buf), "z") == 0 &&
                                              lstat(l2, &st) == 0 && S_ISLNK(st.st_mode));
        TEST_COND("same file through link", rwkv_same_file(l2, want) == 1);
        unlink(l2);
        unlink(want);
        TEST_COND("loop", symlink("chain.bin", l2) == 0);
        TEST_COND("loop refused", rwkv_output_target(l2, tgt, sizeof tgt) != 0 && errno == ELOOP &&
                                      rwkv_write_file(l2, "z", 1, 0644, 0, &err) == RWKV_EIO);
        unlink(l2);
        TEST_COND("plain path kept", rwkv_output_target("a/b.bin", tgt, sizeof tgt) == 0 &&
                                         strcmp(tgt, "a/b.bin") == 0);
    }

    /* an existing FIFO / directory at PATH is refused, not replaced */
    test_tmp_path(t, sizeof t, "fifo2");
    TEST_COND("mkfifo 2", mkfifo(t, 0600) == 0);
    TEST_CONDF(rwkv_atomic_create(t, 0644, 0, &a, &err) == RWKV_EIO && a == NULL &&
                   strstr(err.msg, "fifo2: cannot create: it is a FIFO"), "FIFO: %s", err.msg);
    TEST_COND("FIFO kept", lstat(t, &st) == 0 && S_ISFIFO(st.st_mode));
    TEST_CONDF(rwkv_atomic_create(test_tmp_dir(), 0644, 0, &a, &err) == RWKV_EIO &&
                   strstr(err.msg, "cannot create: it is a directory"), "dir: %s", err.msg);
    TEST_CONDF(rwkv_atomic_create("/nonexistent-dir-h2/x", 0644, 0, &a, &err) == RWKV_EIO &&
                   strstr(err.msg, "/nonexistent-dir-h2/x: cannot create: No such file"),
               "missing dir: %s", err.msg);
    TEST_COND("empty path", rwkv_atomic_create("", 0644, 0, &a, &err) == RWKV_EINVAL);

    /* a commit that cannot rename (PATH became a directory meanwhile) fails
     * with one line and removes the temporary */
    test_tmp_path(t, sizeof t, "late-dir");
    TEST_COND("create 6", rwkv_atomic_create(t, 0644, 0, &a, &err) == RWKV_OK);
    TEST_COND("mkdir in the way", mkdir(t, 0700) == 0 && write(rwkv_atomic_fd(a), "z", 1) == 1);
    TEST_CONDF(rwkv_atomic_commit(a, &err) == RWKV_EIO && strstr(err.msg, "late-dir: ") &&
                   strchr(err.msg, '\n') == NULL, "rename over a dir: %s", err.msg);
    TEST_COND("no temporary after a failed commit", count_tmp() == 0);
    rmdir(t);

    /* a file name without a directory part lands in the current directory */
    {
        char cwd[512];
        if (getcwd(cwd, sizeof cwd) != NULL && chdir(test_tmp_dir()) == 0) {
            TEST_COND("bare name", rwkv_atomic_create("bare.bin", 0644, RWKV_ATOMIC_SYNC, &a,
                                                      &err) == RWKV_OK &&
                                       rwkv_atomic_commit(a, &err) == RWKV_OK);
            TEST_COND("bare name written", stat("bare.bin", &st) == 0 && st.st_size == 0);
            if (chdir(cwd) != 0)
                TEST_COND("chdir back", 0);
        }
    }
}

/*
** A full disk is named as one (/dev/full: every write(2) fails with
** ENOSPC), whichever write met it: a block larger than stdio's buffer,
** which stdio writes at once and after which the commit's fflush finds
** nothing left to fail on (before: "Input/output error", the stream's
** error flag alone), and small writes failing in the commit's flush.
*/
static void
test_full_disk(void)
{
    static char big[3 * 8192];
    rwkv_atomic *a;
    rwkv_err err;
    FILE *f;
    const char *want = strerror(ENOSPC);

    if (access("/dev/full", W_OK) != 0) {
        printf("SKIP test_full_disk: /dev/full not writable\n");
        return;
    }
    memset(big, 'x', sizeof big);
    rwkv_err_clear(&err);
    TEST_CONDF(rwkv_write_file("/dev/full", big, sizeof big, 0644, 0, &err) == RWKV_EIO &&
                   strstr(err.msg, "/dev/full: cannot write: ") != NULL &&
                   strstr(err.msg, want) != NULL,
               "a large block: '%s' (want '%s')", err.msg, want);
    rwkv_err_clear(&err);
    TEST_CONDF(rwkv_write_file("/dev/full", "abc", 3, 0644, 0, &err) == RWKV_EIO &&
                   strstr(err.msg, want) != NULL,
               "a small write: '%s' (want '%s')", err.msg, want);
    /* through the stream: a block, then more text after the failure */
    rwkv_err_clear(&err);
    TEST_COND("create /dev/full", rwkv_atomic_create("/dev/full", 0644, 0, &a, &err) == RWKV_OK);
    if (a != NULL) {
        f = rwkv_atomic_stream(a, &err);
        TEST_COND("stream on /dev/full", f != NULL);
        if (f != NULL) {
            (void)fwrite(big, 1, sizeof big, f);
            fprintf(f, "and %d more\n", 3);
        }
        TEST_CONDF(rwkv_atomic_commit(a, &err) == RWKV_EIO && strstr(err.msg, want) != NULL &&
                       strchr(err.msg, '\n') == NULL,
                   "stream: '%s' (want '%s')", err.msg, want);
    }
}

/* mapfile_read: the mapping's bytes read from the file, the same file after
** its path is replaced; out of range or past a shrunk end is -1, no fault. */
static void
test_map_read(void)
{
    char p[512], q[512], buf[16];
    rwkv_err err;
    mapfile *m = NULL;
    const char *d;

    test_tmp_path(p, sizeof p, "read.bin");
    test_tmp_path(q, sizeof q, "read.new");
    TEST_COND("write", write_file(p, "0123456789abcdef") == 0);
    TEST_COND("map", mapfile_open(p, &m, &err) == RWKV_OK);
    if (m == NULL)
        return;
    d = mapfile_data(m);
    memset(buf, 0, sizeof buf);
    TEST_COND("read a middle", mapfile_read(m, d + 3, 5, buf) == 0 && memcmp(buf, "34567", 5) == 0);
    TEST_COND("read to the end", mapfile_read(m, d + 10, 6, buf) == 0 &&
                                     memcmp(buf, "abcdef", 6) == 0);
    TEST_COND("nothing is fine", mapfile_read(m, d + 16, 0, buf) == 0);
    TEST_COND("past the end", mapfile_read(m, d + 12, 5, buf) == -1);
    TEST_COND("before the start", mapfile_read(m, d - 1, 2, buf) == -1);
    TEST_COND("start past the end", mapfile_read(m, d + 17, 1, buf) == -1);
    /* the path now names another file: the mapped one is still read */
    TEST_COND("replace", write_file(q, "ZZZZZZZZZZZZZZZZ") == 0 && rename(q, p) == 0);
    TEST_COND("read the mapped file", mapfile_read(m, d, 4, buf) == 0 && memcmp(buf, "0123", 4) == 0);
    mapfile_close(m);
    {   /* the read loop under it: whole, past the end, told to stop */
        int fd = open(p, O_RDONLY), stop = 1;
        TEST_COND("pread_full", fd >= 0 && rwkv_pread_full(fd, buf, 4, 12, NULL) == 0 &&
                                    memcmp(buf, "ZZZZ", 4) == 0);
        TEST_COND("pread_full past the end", rwkv_pread_full(fd, buf, 8, 12, NULL) == -1);
        TEST_COND("pread_full stopped", rwkv_pread_full(fd, buf, 4, 0, &stop) == -1);
        if (fd >= 0)
            close(fd);
    }
    /* shrunk under the mapping: the read ends early, -1 (no SIGBUS) */
    TEST_COND("write again", write_file(p, "0123456789abcdef") == 0);
    m = NULL;
    TEST_COND("map again", mapfile_open(p, &m, &err) == RWKV_OK);
    if (m == NULL)
        return;
    TEST_COND("truncate", truncate(p, 4) == 0);
    TEST_COND("read past the new end", mapfile_read(m, (const char *)mapfile_data(m) + 2, 8, buf) == -1);
    mapfile_close(m);
}

static void
test_guard(void)
{
    char p[512];
    rwkv_err err;
    mapfile *m = NULL;
    const unsigned char *d;
    static char fake[64];

    test_tmp_path(p, sizeof p, "mapped.bin");
    TEST_COND("write", write_file(p, "0123456789abcdef") == 0);
    TEST_COND("map", mapfile_open(p, &m, &err) == RWKV_OK);
    if (m == NULL)
        return;
    d = mapfile_data(m);
    TEST_COND("path kept", strcmp(mapfile_path(m), p) == 0);
    TEST_COND("first byte guarded", mapfile_guard_find(d) != NULL &&
                                        strcmp(mapfile_guard_find(d), p) == 0);
    TEST_COND("last byte guarded", mapfile_guard_find(d + 15) != NULL);
    TEST_COND("outside not guarded", mapfile_guard_find(fake) == NULL);
    mapfile_close(m);
    TEST_COND("close unguards", mapfile_guard_find(d) == NULL);

    /* the table by hand: add, find, remove; a full table says -1 */
    TEST_COND("add", mapfile_guard_add(fake, sizeof fake, "fake") >= 0);
    TEST_COND("find", mapfile_guard_find(fake + 63) != NULL &&
                          strcmp(mapfile_guard_find(fake + 63), "fake") == 0);
    TEST_COND("end is outside", mapfile_guard_find(fake + 64) == NULL);
    mapfile_guard_remove(fake);
    TEST_COND("removed", mapfile_guard_find(fake) == NULL);
    {
        static char many[MAPFILE_GUARD_SLOTS + 1];
        int got = 0, full;
        for (int i = 0; i < MAPFILE_GUARD_SLOTS; i++)
            got += mapfile_guard_add(many + i, 1, "many") >= 0;
        full = mapfile_guard_add(many + MAPFILE_GUARD_SLOTS, 1, "many");
        TEST_CONDF(got == MAPFILE_GUARD_SLOTS && full == -1, "got %d slots, then %d", got, full);
        for (int i = 0; i < MAPFILE_GUARD_SLOTS; i++)
            mapfile_guard_remove(many + i);
        TEST_COND("all removed", mapfile_guard_find(many) == NULL &&
                                     mapfile_guard_add(fake, 1, "fake") >= 0);
        mapfile_guard_remove(fake);
    }
    /* a FIFO is refused by the mapper too */
    test_tmp_path(p, sizeof p, "map-fifo");
    TEST_COND("mkfifo 3", mkfifo(p, 0600) == 0);
    alarm(20);
    TEST_CONDF(mapfile_open(p, &m, &err) == RWKV_EIO && m == NULL &&
                   strstr(err.msg, "not a regular file (a FIFO)"), "map FIFO: %s", err.msg);
    alarm(0);
}

/* The folder of a path, for every shape a user's path takes. */
static void
test_path_dir(void)
{
    static const char *const cases[][2] = {
        {"m.pth", "."},        {"/m.pth", "/"},          {"a/m.pth", "a"},
        {"/a/b/m.pth", "/a/b"}, {"./m.pth", "."},         {"a/", "a"},
        {"", "."},             {"../x/y", "../x"},
    };
    char dir[8];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        rwkv_path_dir(cases[i][0], buf, sizeof buf);
        TEST_CONDF(strcmp(buf, cases[i][1]) == 0, "dir of '%s': '%s'", cases[i][0], buf);
    }
    rwkv_path_dir("/a/long/folder/x", dir, sizeof dir);
    TEST_CONDF(strcmp(dir, "/a/long") == 0, "truncated to its buffer: '%s'", dir);
}

int
main(void)
{
    signal(SIGALRM, on_alarm);
    if (test_tmpdir("rwkv-fileio") == NULL)
        return 1;
    test_open_regular();
    test_atomic();
    test_full_disk();
    test_guard();
    test_map_read();
    test_tmpdir_remove();
    test_path_dir();
    return TEST_REPORT();
}
