/*
 * delayfs: a FUSE passthrough of one folder that sleeps where a device would be asked: before every read of data,
 * every fsync and fdatasync, and every write the caller made durable (O_DSYNC, O_SYNC); a buffered write waits for
 * nothing, as on a disk it lands in the page cache. The sleep follows the calls in flight, as a queue's latency does.
 * Built by storage/Makefile; mounted by storage/mount.js.
 * Usage: delayfs BACKING MOUNTPOINT [--delay-us=N] [--delay-qd4-us=N] [--depth=N] [--parent-pid=PID] [-o OPTS] [-d]
 */
#define FUSE_USE_VERSION 314
#define _GNU_SOURCE

#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

static int backing_fd = -1;
static char backing_path[PATH_MAX];
/* The latency at one call in flight and at QD4_DEPTH or more; linear in depth between (delay_at). */
#define QD4_DEPTH 4
static long delay_qd1_ns, delay_qd4_ns;
static sem_t depth_slots;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* Counters, updated with atomic builtins from every worker thread. */
static uint64_t n_reads, n_writes, n_syncs, read_us, write_us, sync_us, read_bytes, write_bytes, wait_us, delay_us;
static uint64_t device_calls, device_us; /* the calls that took the device, and their time from arrival to answer */
static uint64_t active, peak_depth;

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The high-level API hands us "/a/b"; every syscall is relative to the backing folder's fd. */
static const char *rel(const char *path)
{
	return path[1] ? path + 1 : ".";
}

/* The latency at a depth (the calls in service, this one included): linear from QD1's to QD4's, held beyond. */
static long delay_at(uint64_t depth)
{
	if (depth <= 1)
		return delay_qd1_ns;
	if (depth >= QD4_DEPTH)
		return delay_qd4_ns;
	return delay_qd1_ns + (delay_qd4_ns - delay_qd1_ns) * (long)(depth - 1) / (QD4_DEPTH - 1);
}

/*
 * Takes a depth slot, then sleeps the latency of the depth it finds: the wait for a slot is the device's queue, the
 * sleep its service time.
 */
static void enter_device(void)
{
	uint64_t t0 = now_us();
	while (sem_wait(&depth_slots) == -1 && errno == EINTR)
		;
	__atomic_add_fetch(&wait_us, now_us() - t0, __ATOMIC_RELAXED);
	uint64_t depth = __atomic_add_fetch(&active, 1, __ATOMIC_RELAXED);
	uint64_t peak = __atomic_load_n(&peak_depth, __ATOMIC_RELAXED);
	while (depth > peak && !__atomic_compare_exchange_n(&peak_depth, &peak, depth, 0,
							    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	long delay_ns = delay_at(depth);
	__atomic_add_fetch(&delay_us, (uint64_t)(delay_ns / 1000), __ATOMIC_RELAXED);
	if (delay_ns > 0) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += delay_ns % 1000000000L;
		until.tv_sec += delay_ns / 1000000000L + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
			;
	}
}

static void leave_device(uint64_t t0)
{
	__atomic_sub_fetch(&active, 1, __ATOMIC_RELAXED);
	sem_post(&depth_slots);
	__atomic_add_fetch(&device_calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&device_us, now_us() - t0, __ATOMIC_RELAXED);
}

static void print_counters(void)
{
	char line[512];
	int n = snprintf(line, sizeof line,
		"{\"reads\":%lu,\"writes\":%lu,\"syncs\":%lu,\"readUs\":%lu,\"writeUs\":%lu,\"syncUs\":%lu,"
		"\"readBytes\":%lu,\"writeBytes\":%lu,\"waitUs\":%lu,\"delayUs\":%lu,\"peakDepth\":%lu,"
		"\"deviceCalls\":%lu,\"deviceUs\":%lu}\n",
		(unsigned long)__atomic_load_n(&n_reads, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&n_writes, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&n_syncs, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&read_us, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&write_us, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&sync_us, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&read_bytes, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&write_bytes, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&wait_us, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&delay_us, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&peak_depth, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&device_calls, __ATOMIC_RELAXED),
		(unsigned long)__atomic_load_n(&device_us, __ATOMIC_RELAXED));
	pthread_mutex_lock(&print_lock);
	if (write(STDOUT_FILENO, line, (size_t)n) < 0) {
		/* nobody is listening any more: the counters are lost, the unmount is not */
	}
	pthread_mutex_unlock(&print_lock);
}

/* SIGUSR1 is blocked everywhere and taken here, so printing needs no async-signal safety. */
static void *counters_thread(void *arg)
{
	sigset_t *set = arg;
	int sig;
	for (;;)
		if (sigwait(set, &sig) == 0)
			print_counters();
	return NULL;
}

static void *dfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	cfg->use_ino = 1;
	cfg->entry_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->auto_cache = 0;
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 1;
	return NULL;
}

static int dfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	if (!fi && !path)
		return -ESTALE;
	int res = fi ? fstat((int)fi->fh, st) : fstatat(backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW);
	return res == -1 ? -errno : 0;
}

static int dfs_readlink(const char *path, char *buf, size_t size)
{
	ssize_t n = readlinkat(backing_fd, rel(path), buf, size - 1);
	if (n == -1)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static int dfs_opendir(const char *path, struct fuse_file_info *fi)
{
	int fd = openat(backing_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	DIR *dir = fdopendir(fd);
	if (!dir) {
		int err = errno;
		close(fd);
		return -err;
	}
	fi->fh = (uintptr_t)dir;
	return 0;
}

static int dfs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	DIR *dir = (DIR *)(uintptr_t)fi->fh;
	struct dirent *de;
	(void)path; (void)off; (void)flags;
	rewinddir(dir);
	errno = 0;
	while ((de = readdir(dir))) {
		struct stat st = { .st_ino = de->d_ino, .st_mode = (mode_t)DTTOIF(de->d_type) };
		if (filler(buf, de->d_name, &st, 0, 0))
			return 0;
	}
	return -errno;
}

static int dfs_releasedir(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	closedir((DIR *)(uintptr_t)fi->fh);
	return 0;
}

/*
 * O_DSYNC and O_SYNC are the layer's to honour (a sleep per write: dfs_write); the backing file is opened without them,
 * as its device is not the one emulated.
 */
static int dfs_open(const char *path, struct fuse_file_info *fi)
{
	int fd = openat(backing_fd, rel(path), (fi->flags & ~(O_SYNC | O_DSYNC)) | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int dfs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int fd = openat(backing_fd, rel(path), (fi->flags & ~(O_SYNC | O_DSYNC)) | O_CREAT | O_CLOEXEC, mode);
	if (fd == -1)
		return -errno;
	fi->fh = (uint64_t)fd;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

/*
 * A read at or past the end of the file reads no block: a device is not asked, the kernel answers 0 from the size it
 * knows. Bun and Deno read a file until such a read (one more per GET than Node): it must not wait, nor count.
 */
static int dfs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	uint64_t t0 = now_us();
	struct stat st;
	(void)path;
	if (fstat((int)fi->fh, &st) == 0 && off >= st.st_size) {
		ssize_t n = pread((int)fi->fh, buf, size, off);
		return n == -1 ? -errno : (int)n;
	}
	enter_device();
	ssize_t n = pread((int)fi->fh, buf, size, off);
	int err = errno;
	leave_device(t0);
	__atomic_add_fetch(&n_reads, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&read_us, now_us() - t0, __ATOMIC_RELAXED);
	if (n == -1)
		return -err;
	__atomic_add_fetch(&read_bytes, (uint64_t)n, __ATOMIC_RELAXED);
	return (int)n;
}

/*
 * pwrite on an O_APPEND fd ignores the offset (Linux): the backing kernel appends each record whole. A buffered write
 * asks no device; a durable one does: the kernel sends each write's flags, its file's O_DSYNC or O_SYNC (which holds
 * O_DSYNC's bit) and pwritev2's RWF_DSYNC as O_DSYNC.
 */
static int dfs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	uint64_t t0 = now_us();
	int durable = fi->flags & O_DSYNC;
	(void)path;
	if (durable)
		enter_device();
	ssize_t n = pwrite((int)fi->fh, buf, size, off);
	int err = errno;
	if (durable)
		leave_device(t0);
	__atomic_add_fetch(&n_writes, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&write_us, now_us() - t0, __ATOMIC_RELAXED);
	if (n == -1)
		return -err;
	__atomic_add_fetch(&write_bytes, (uint64_t)n, __ATOMIC_RELAXED);
	return (int)n;
}

static int dfs_release(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	close((int)fi->fh);
	return 0;
}

/*
 * fsync and fdatasync wait as a device's flush would; the backing file is not flushed (its device is not the one
 * emulated: its own flush would add that disk's latency to the layer's).
 */
static int dfs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	uint64_t t0 = now_us();
	(void)path; (void)datasync; (void)fi;
	enter_device();
	leave_device(t0);
	__atomic_add_fetch(&n_syncs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sync_us, now_us() - t0, __ATOMIC_RELAXED);
	return 0;
}

static int dfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	if (fi)
		return ftruncate((int)fi->fh, size) == -1 ? -errno : 0;
	int fd = openat(backing_fd, rel(path), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return -errno;
	int res = ftruncate(fd, size) == -1 ? -errno : 0;
	close(fd);
	return res;
}

static int dfs_unlink(const char *path)
{
	return unlinkat(backing_fd, rel(path), 0) == -1 ? -errno : 0;
}

static int dfs_mkdir(const char *path, mode_t mode)
{
	return mkdirat(backing_fd, rel(path), mode) == -1 ? -errno : 0;
}

static int dfs_rmdir(const char *path)
{
	return unlinkat(backing_fd, rel(path), AT_REMOVEDIR) == -1 ? -errno : 0;
}

static int dfs_symlink(const char *target, const char *path)
{
	return symlinkat(target, backing_fd, rel(path)) == -1 ? -errno : 0;
}

static int dfs_rename(const char *from, const char *to, unsigned int flags)
{
	return renameat2(backing_fd, rel(from), backing_fd, rel(to), flags) == -1 ? -errno : 0;
}

static int dfs_link(const char *from, const char *to)
{
	return linkat(backing_fd, rel(from), backing_fd, rel(to), 0) == -1 ? -errno : 0;
}

static int dfs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	int res = fi ? fchmod((int)fi->fh, mode) : fchmodat(backing_fd, rel(path), mode, 0);
	return res == -1 ? -errno : 0;
}

static int dfs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	int res = fi ? fchown((int)fi->fh, uid, gid)
		     : fchownat(backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW);
	return res == -1 ? -errno : 0;
}

static int dfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	int res = fi ? futimens((int)fi->fh, tv) : utimensat(backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW);
	return res == -1 ? -errno : 0;
}

static int dfs_statfs(const char *path, struct statvfs *st)
{
	(void)path;
	return statvfs(backing_path, st) == -1 ? -errno : 0;
}

static const struct fuse_operations ops = {
	.init = dfs_init, .getattr = dfs_getattr, .readlink = dfs_readlink,
	.opendir = dfs_opendir, .readdir = dfs_readdir, .releasedir = dfs_releasedir,
	.open = dfs_open, .create = dfs_create, .read = dfs_read, .write = dfs_write,
	.release = dfs_release, .fsync = dfs_fsync, .truncate = dfs_truncate,
	.unlink = dfs_unlink, .mkdir = dfs_mkdir, .rmdir = dfs_rmdir, .symlink = dfs_symlink,
	.rename = dfs_rename, .link = dfs_link, .chmod = dfs_chmod, .chown = dfs_chown,
	.utimens = dfs_utimens, .statfs = dfs_statfs,
};

static void usage_exit(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	/* The error goes last: the Node module reports the daemon's last stderr line. */
	fputs("usage: delayfs BACKING MOUNTPOINT [--delay-us=N] [--delay-qd4-us=N] [--depth=N] [--parent-pid=PID] [-o OPTS] [-d]\n", stderr);
	fputs("delayfs: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static long parse_count(const char *flag, const char *value, long min)
{
	char *end;
	errno = 0;
	long n = strtol(value, &end, 10);
	if (errno || end == value || *end || n < min)
		usage_exit("%s must be an integer >= %ld, got '%s'", flag, min, value);
	return n;
}

int main(int argc, char *argv[])
{
	const char *paths[2] = { NULL, NULL };
	const char *extra_opts = NULL;
	long qd1_us = 0, qd4_us = -1, depth = 64, parent_pid = 0;
	int debug = 0, npaths = 0;

	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--delay-us=", 11))
			qd1_us = parse_count("--delay-us", argv[i] + 11, 0);
		else if (!strncmp(argv[i], "--delay-qd4-us=", 15))
			qd4_us = parse_count("--delay-qd4-us", argv[i] + 15, 0);
		else if (!strncmp(argv[i], "--depth=", 8))
			depth = parse_count("--depth", argv[i] + 8, 1);
		else if (!strncmp(argv[i], "--parent-pid=", 13))
			parent_pid = parse_count("--parent-pid", argv[i] + 13, 1);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			extra_opts = argv[++i];
		else if (!strcmp(argv[i], "-d"))
			debug = 1;
		else if (argv[i][0] == '-' || npaths == 2)
			usage_exit("unknown argument '%s'", argv[i]);
		else
			paths[npaths++] = argv[i];
	}
	if (npaths != 2)
		usage_exit("BACKING and MOUNTPOINT are required");
	if (depth > 10000)
		usage_exit("--depth must be <= 10000, got %ld", depth);

	/* Die with the process that started us, also if it died before this line. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (parent_pid && getppid() != (pid_t)parent_pid) {
		fprintf(stderr, "delayfs: parent pid %ld is already gone\n", parent_pid);
		return 1;
	}

	if (!realpath(paths[0], backing_path)) {
		fprintf(stderr, "delayfs: backing folder %s: %s\n", paths[0], strerror(errno));
		return 1;
	}
	backing_fd = open(backing_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (backing_fd == -1) {
		fprintf(stderr, "delayfs: backing folder %s: %s\n", backing_path, strerror(errno));
		return 1;
	}
	delay_qd1_ns = qd1_us * 1000L;
	delay_qd4_ns = (qd4_us < 0 ? qd1_us : qd4_us) * 1000L; /* no QD4 latency: the one delay at every depth */
	sem_init(&depth_slots, 0, (unsigned int)depth);
	umask(0); /* the kernel already applied the caller's umask */
	prctl(PR_SET_TIMERSLACK, 1UL); /* wake on time: the default 50 µs slack would add to every delay */

	/* fsname names the owner and this daemon so a later run can tell a stale mount from a live one. */
	char fsname[PATH_MAX + 64];
	char *opts = NULL;
	snprintf(fsname, sizeof fsname, "fsname=delayfs:%ld:%ld:%s",
		 (long)getppid(), (long)getpid(), backing_path);
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	if (fuse_opt_add_opt_escaped(&opts, fsname) || fuse_opt_add_opt(&opts, "subtype=delayfs") ||
	    (extra_opts && fuse_opt_add_opt(&opts, extra_opts)) ||
	    fuse_opt_add_arg(&args, argv[0]) || fuse_opt_add_arg(&args, "-o") ||
	    fuse_opt_add_arg(&args, opts) || (debug && fuse_opt_add_arg(&args, "-d"))) {
		fprintf(stderr, "delayfs: out of memory\n");
		return 1;
	}

	sigset_t usr1, all, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	/* The counters thread must never take SIGTERM: libfuse's handler has to wake the loop. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_t printer;
	int thread_err = pthread_create(&printer, NULL, counters_thread, &usr1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (thread_err) {
		fprintf(stderr, "delayfs: cannot start the counters thread: %s\n", strerror(thread_err));
		return 1;
	}

	struct fuse *fuse = fuse_new(&args, &ops, sizeof ops, NULL);
	if (!fuse)
		return 1;
	struct fuse_session *se = fuse_get_session(fuse);
	if (fuse_set_signal_handlers(se) || fuse_mount(fuse, paths[1])) {
		fuse_destroy(fuse);
		return 1;
	}
	char ready[PATH_MAX + 64];
	int len = snprintf(ready, sizeof ready, "mounted %s pid=%ld\n", paths[1], (long)getpid());
	pthread_mutex_lock(&print_lock);
	if (write(STDOUT_FILENO, ready, (size_t)len) < 0)
		fuse_exit(fuse);
	pthread_mutex_unlock(&print_lock);

	/* Threads beyond the depth keep lookups and getattrs moving while reads wait for a slot. */
	struct fuse_loop_config *loop = fuse_loop_cfg_create();
	fuse_loop_cfg_set_max_threads(loop, (unsigned int)depth + 8);
	fuse_loop_cfg_set_idle_threads(loop, (unsigned int)depth + 8);
	int res = fuse_loop_mt(fuse, loop);
	fuse_loop_cfg_destroy(loop);

	fuse_remove_signal_handlers(se);
	signal(SIGPIPE, SIG_IGN);
	fuse_unmount(fuse);
	print_counters();
	fuse_destroy(fuse);
	fuse_opt_free_args(&args);
	free(opts);
	return res < 0 ? 1 : 0;
}
