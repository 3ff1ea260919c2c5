/*
** test_store_open_undo.c -- an open of the session database that fails
** leaves the file system as it found it (storage/store.c, store_open /
** made_undo), on real files in a temp dir.
**
** store_open creates the file (mode 0600) before SQLite opens it, and the
** default path's directories before that.  An open that then failed -- the
** first write refused (here the file-size limit, `ulimit -f`, as a full
** disk would), another reason -- left an empty file behind where there was
** none: the next start found a "database" that was never one, and the
** directories of a default path made for it.  Now the file this call made
** is removed when it is still empty and the same inode, with nothing beside
** it; the directories it made go when empty; an existing empty file made
** 0600 gets its mode back; an existing file that is not a database is left
** exactly as it was.
*/
#include "../harness.h"

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../../storage/store.h"
#include "store_test.h"

/* Nothing at PATH, PATH-wal, PATH-shm, PATH-journal. */
static int
nothing_at(const char *path)
{
    static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
    char p[1024];
    struct stat sb;

    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        snprintf(p, sizeof p, "%s%s", path, sfx[i]);
        if (lstat(p, &sb) == 0) {
            printf("     %s is there (%lld bytes)\n", p, (long long)sb.st_size);
            return 0;
        }
    }
    return 1;
}

/* store_open(PATH) with the file-size limit at 4 KB (the first page of a
** new database, 64 KB, cannot be written): its result, ERR filled. */
static int
open_limited(const char *path, rwkv_err *err)
{
    struct rlimit old, lim;
    store *st = NULL;
    int rc;

    if (getrlimit(RLIMIT_FSIZE, &old) != 0)
        return -1;
    lim = old;
    lim.rlim_cur = 4096;
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return -1;
    rc = store_open(path, &st, err);
    setrlimit(RLIMIT_FSIZE, &old);
    store_close(st);
    return rc;
}

/* A new file: the failed open takes it away. */
static void
new_file(void)
{
    char db[600];
    rwkv_err err;
    int rc;

    test_tmp_path(db, sizeof db, "new.db");
    rc = open_limited(db, &err);
    TEST_CONDF(rc != RWKV_OK && rc != -1 && strstr(err.msg, db) == err.msg,
               "new file: the open fails naming the file (rc %d: %s)", rc, err.msg);
    TEST_INFO("the failed open said: %s", err.msg);
    TEST_COND("new file: nothing left behind", nothing_at(db));
    /* and the next open, without the limit, makes it as usual */
    {
        store *st = NULL;
        TEST_CONDF(store_open(db, &st, &err) == RWKV_OK, "new file: opened after (%s)",
                   st ? "" : err.msg);
        store_close(st);
        TEST_COND("new file: a database now", file_size(db) > 0 && q_integrity_ok(db));
    }
}

/* The default path ($XDG_DATA_HOME/rwkv-tui/rwkv-tui.db): the directories
** the failed open made go too; one that was there stays. */
static void
default_path(void)
{
    char xdg[600], dir[700], db[800];
    rwkv_err err;
    struct stat sb;
    int rc;

    test_tmp_path(xdg, sizeof xdg, "xdg/data");
    snprintf(dir, sizeof dir, "%s/rwkv-tui", xdg);
    snprintf(db, sizeof db, "%s/rwkv-tui.db", dir);
    setenv("XDG_DATA_HOME", xdg, 1);
    rc = open_limited(NULL, &err);
    TEST_CONDF(rc != RWKV_OK && rc != -1, "default path: the open fails (rc %d: %s)", rc,
               err.msg);
    TEST_COND("default path: no file", nothing_at(db));
    TEST_COND("default path: the directories it made are gone",
              stat(dir, &sb) != 0 && stat(xdg, &sb) != 0);
    test_tmp_path(xdg, sizeof xdg, "xdg");
    TEST_COND("default path: the temp dir itself stays", stat(test_tmp_dir(), &sb) == 0 &&
                                                            stat(xdg, &sb) != 0);

    /* $XDG_DATA_HOME there already: only rwkv-tui/ was made, and goes */
    TEST_COND("xdg made", mkdir(xdg, 0755) == 0);
    setenv("XDG_DATA_HOME", xdg, 1);
    snprintf(dir, sizeof dir, "%s/rwkv-tui", xdg);
    snprintf(db, sizeof db, "%s/rwkv-tui.db", dir);
    rc = open_limited(NULL, &err);
    TEST_CONDF(rc != RWKV_OK && rc != -1, "existing xdg: the open fails (rc %d)", rc);
    TEST_COND("existing xdg: rwkv-tui/ gone, $XDG_DATA_HOME kept",
              nothing_at(db) && stat(dir, &sb) != 0 && stat(xdg, &sb) == 0 && S_ISDIR(sb.st_mode));

    /* a directory with something else in it is not removed */
    TEST_COND("rwkv-tui/ made by hand", mkdir(dir, 0700) == 0);
    {
        char other[900];
        FILE *f;
        snprintf(other, sizeof other, "%s/keep.txt", dir);
        f = fopen(other, "w");
        if (f)
            fclose(f);
        rc = open_limited(NULL, &err);
        TEST_CONDF(rc != RWKV_OK && rc != -1 && nothing_at(db) && stat(other, &sb) == 0,
                   "a directory that was there stays with its file (rc %d)", rc);
    }
    unsetenv("XDG_DATA_HOME");
}

/* An empty file (touch): made 0600 for the open; the failed open puts its
** mode back and leaves it. */
static void
empty_file(void)
{
    char db[600];
    rwkv_err err;
    struct stat sb;
    FILE *f;
    int rc;

    test_tmp_path(db, sizeof db, "empty.db");
    if ((f = fopen(db, "w")) != NULL)
        fclose(f);
    TEST_COND("empty file made 0644", chmod(db, 0644) == 0);
    rc = open_limited(db, &err);
    TEST_CONDF(rc != RWKV_OK && rc != -1, "empty file: the open fails (rc %d)", rc);
    TEST_CONDF(stat(db, &sb) == 0 && sb.st_size == 0 && (sb.st_mode & 07777) == 0644,
               "empty file: still there, empty, mode 0644 (%o, %lld bytes)",
               (unsigned)(sb.st_mode & 07777), (long long)sb.st_size);
}

/* A file that is not a database: refused, left exactly as it was. */
static void
not_a_database(void)
{
    static const char text[] = "my notes, not a database\n";
    char db[600], back[64] = "";
    store *st = NULL;
    rwkv_err err;
    struct stat sb;
    FILE *f;
    int rc;

    test_tmp_path(db, sizeof db, "notes.db");
    if ((f = fopen(db, "w")) != NULL) {
        fputs(text, f);
        fclose(f);
    }
    chmod(db, 0640);
    rc = store_open(db, &st, &err);
    TEST_CONDF(rc == RWKV_EDB && strstr(err.msg, "not a rwkv-tui session database"),
               "not a database: refused (rc %d: %s)", rc, err.msg);
    store_close(st);
    if ((f = fopen(db, "r")) != NULL) {
        if (fgets(back, sizeof back, f) == NULL)
            back[0] = '\0';
        fclose(f);
    }
    TEST_CONDF(stat(db, &sb) == 0 && (sb.st_mode & 07777) == 0640 && strcmp(back, text) == 0,
               "not a database: the file as it was (%o, '%s')", (unsigned)(sb.st_mode & 07777),
               back);
    {
        char p[700];
        snprintf(p, sizeof p, "%s-wal", db);
        TEST_COND("not a database: nothing beside it", access(p, F_OK) != 0 &&
                                                         (snprintf(p, sizeof p, "%s-shm", db),
                                                          access(p, F_OK) != 0));
    }
}

int
main(void)
{
    if (test_tmpdir("rwkv-test-store-open-undo") == NULL)
        return 1;
    signal(SIGXFSZ, SIG_IGN);   /* a write past the limit fails (EFBIG), as in cli/main.c */
    new_file();
    default_path();
    empty_file();
    not_a_database();
    test_tmpdir_remove();
    return TEST_REPORT();
}
