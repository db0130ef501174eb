/* mdloop.c: the minimal metadata loop bench/md-vs-loop.sh holds ioswarm
 * against. T threads (pthreads), each in its own directory DIR/t<i>/,
 * create N files (open O_CREAT|O_EXCL|O_WRONLY, close), then stat each,
 * then unlink each; sync + drop_caches before each phase (as root), the
 * threads released together by a barrier. A phase's time runs from the
 * earliest thread's first operation to the latest thread's last, on
 * CLOCK_MONOTONIC, as ioswarm's window does; it prints
 * "<phase> <ops> <ops per second>" per phase.
 *
 * Usage: mdloop DIR THREADS FILES
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static long files;
static int phase;
static pthread_barrier_t bar;
static double starts[1024], ends[1024];

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg) {
	long t = (long)arg;
	char path[4096];
	for (;;) {
		pthread_barrier_wait(&bar); /* phase set */
		if (phase < 0)
			return NULL;
		starts[t] = now();
		for (long j = 0; j < files; j++) {
			snprintf(path, sizeof path, "%s/t%ld/f%ld", dir, t, j);
			if (phase == 0) {
				int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
				if (fd < 0 || close(fd) < 0) { perror(path); exit(1); }
			} else if (phase == 1) {
				struct stat st;
				if (stat(path, &st) < 0) { perror(path); exit(1); }
			} else if (unlink(path) < 0) { perror(path); exit(1); }
		}
		ends[t] = now();
		pthread_barrier_wait(&bar); /* phase done */
	}
}

static void drop(void) {
	sync();
	FILE *f = fopen("/proc/sys/vm/drop_caches", "w");
	if (f) { fputs("3\n", f); fclose(f); }
}

int main(int argc, char **argv) {
	if (argc != 4) { fprintf(stderr, "usage: mdloop DIR THREADS FILES\n"); return 2; }
	dir = argv[1];
	int threads = atoi(argv[2]);
	files = atol(argv[3]);
	if (threads < 1 || threads > 1024 || files < 1) return 2;
	char path[4096];
	for (int t = 0; t < threads; t++) {
		snprintf(path, sizeof path, "%s/t%d", dir, t);
		if (mkdir(path, 0755) < 0) { perror(path); return 1; }
	}
	pthread_barrier_init(&bar, NULL, threads + 1);
	pthread_t th[1024];
	for (long t = 0; t < threads; t++) pthread_create(&th[t], NULL, worker, (void *)t);
	const char *names[] = {"mdcreate", "mdstat", "mddelete"};
	for (phase = 0; phase < 3; phase++) {
		drop();
		pthread_barrier_wait(&bar);
		pthread_barrier_wait(&bar);
		double s = starts[0], e = ends[0];
		for (int t = 1; t < threads; t++) {
			if (starts[t] < s) s = starts[t];
			if (ends[t] > e) e = ends[t];
		}
		printf("%s %ld %.1f\n", names[phase], files * threads, files * threads / (e - s));
	}
	phase = -1;
	pthread_barrier_wait(&bar);
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		snprintf(path, sizeof path, "%s/t%d", dir, t);
		rmdir(path);
	}
	return 0;
}
