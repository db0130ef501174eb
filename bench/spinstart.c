/*
 * spinstart: the smallest program that starts N threads together the way
 * IOR's ranks leave their barrier: every thread spins (yielding the CPU
 * between readings) on CLOCK_MONOTONIC until a release time 50 ms ahead,
 * takes its start just after, then writes its own file of SIZE bytes in
 * 16 MiB records, fsyncs and closes it; then, after sync and drop_caches
 * (as root), a second release and each thread reads its file back. It
 * prints each phase's start skew (latest start - earliest start), the
 * figure ioswarm reports as start_skew_ns, for bench/skew-vs-spin.sh.
 *
 *   spinstart DIR THREADS BYTES_PER_THREAD
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RECORD (16L << 20)

static const char *dir;
static long threads, size;
static int64_t release;
static int64_t starts[2][1024];
static pthread_barrier_t ready;

static int64_t now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static int64_t spin_until(int64_t at)
{
	int64_t t;
	while ((t = now()) < at)
		sched_yield();
	return t;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	char path[4096];
	char *buf;
	if (posix_memalign((void **)&buf, 4096, RECORD))
		die("posix_memalign");
	memset(buf, 'a' + id % 26, RECORD);
	snprintf(path, sizeof path, "%s/s%ld.dat", dir, id);
	for (int phase = 0; phase < 2; phase++) {
		pthread_barrier_wait(&ready); /* the main thread set release */
		starts[phase][id] = spin_until(release);
		int fd = phase == 0 ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
				    : open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(path);
		for (long off = 0; off < size; off += RECORD) {
			ssize_t n = phase == 0 ? pwrite(fd, buf, RECORD, off) : pread(fd, buf, RECORD, off);
			if (n != RECORD)
				die(phase == 0 ? "pwrite" : "pread");
		}
		if (phase == 0 && fsync(fd) < 0)
			die("fsync");
		close(fd);
		pthread_barrier_wait(&ready); /* all done */
	}
	free(buf);
	return NULL;
}

static void drop_caches(void)
{
	sync();
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) {
		fputs("3\n", f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return fprintf(stderr, "usage: spinstart DIR THREADS BYTES_PER_THREAD\n"), 2;
	dir = argv[1];
	threads = atol(argv[2]);
	size = atol(argv[3]);
	if (threads < 1 || threads > 1024 || size < RECORD || size % RECORD)
		return fprintf(stderr, "spinstart: 1-1024 threads, a whole number of 16 MiB records\n"), 2;
	pthread_t tid[1024];
	pthread_barrier_init(&ready, NULL, threads + 1);
	for (long i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, (void *)i))
			die("pthread_create");
	const char *names[2] = {"write", "read"};
	for (int phase = 0; phase < 2; phase++) {
		if (phase == 1)
			drop_caches();
		release = now() + 50000000;
		pthread_barrier_wait(&ready);
		pthread_barrier_wait(&ready);
		int64_t lo = INT64_MAX, hi = 0;
		for (long i = 0; i < threads; i++) {
			if (starts[phase][i] < lo)
				lo = starts[phase][i];
			if (starts[phase][i] > hi)
				hi = starts[phase][i];
		}
		printf("%s %lld\n", names[phase], (long long)(hi - lo));
	}
	for (long i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		char path[4096];
		snprintf(path, sizeof path, "%s/s%ld.dat", dir, i);
		unlink(path);
	}
	return 0;
}
