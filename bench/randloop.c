/* randloop.c: the minimal random-read loop bench/randread-vs-loop.sh holds
 * ioswarm against, shaped as IOzone's -i2 readers are: one forked,
 * single-threaded process per file, each of which opens its file, orders
 * its records by a Fisher-Yates shuffle from lrand48 seeded with 0, waits
 * for the start by polling a shared flag in 1 ms sleeps, and then, timed,
 * reads every record once with lseek and read, and closes the file.
 * A child's time runs from its start to after its close on
 * CLOCK_MONOTONIC. It prints one line:
 *   children <sum of each child's kB/s> window <all kB over the time from
 *   the earliest start to the latest end, kB/s> cpu <the children's CPU
 *   seconds over their timed parts>
 * "children" is IOzone's Children see; "window" is ioswarm's bandwidth.
 *
 * Usage: randloop RECORD FILE...
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct child {
	double start, end, kb, cpu;
	int ready;
};

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void reader(const char *path, long record, struct child *me, volatile int *go) {
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	long records = lseek(fd, 0, SEEK_END) / record;
	char *buf;
	long *order = malloc(sizeof(long) * records);
	if (!order || posix_memalign((void **)&buf, 4096, record)) {
		fprintf(stderr, "%s: out of memory\n", path);
		exit(1);
	}
	for (long i = 0; i < records; i++)
		order[i] = i;
	srand48(0);
	for (long i = records - 1; i > 0; i--) {
		long j = lrand48() % (i + 1), t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	__atomic_store_n(&me->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE))
		usleep(1000);
	double cpu0 = cpu_seconds(), start = now();
	for (long i = 0; i < records; i++) {
		if (lseek(fd, order[i] * record, SEEK_SET) < 0 || read(fd, buf, record) != record) {
			perror(path);
			exit(1);
		}
	}
	close(fd);
	double end = now();
	me->start = start;
	me->end = end;
	me->kb = records * (double)record / 1024;
	me->cpu = cpu_seconds() - cpu0;
	exit(0);
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: randloop RECORD FILE...\n");
		return 2;
	}
	long record = atol(argv[1]);
	int n = argc - 2;
	struct child *c = mmap(0, sizeof(struct child) * n + sizeof(int), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (record <= 0 || c == MAP_FAILED) {
		fprintf(stderr, "randloop: bad record size or no shared memory\n");
		return 2;
	}
	volatile int *go = (int *)(c + n);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			reader(argv[i + 2], record, &c[i], go);
	}
	for (int i = 0; i < n; i++)
		while (!__atomic_load_n(&c[i].ready, __ATOMIC_ACQUIRE))
			usleep(1000);
	__atomic_store_n(go, 1, __ATOMIC_RELEASE);
	int status, failed = 0;
	while (wait(&status) > 0)
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	if (failed)
		return 1;
	double sum = 0, kb = 0, cpu = 0, first = c[0].start, last = c[0].end;
	for (int i = 0; i < n; i++) {
		sum += c[i].kb / (c[i].end - c[i].start);
		kb += c[i].kb;
		cpu += c[i].cpu;
		if (c[i].start < first)
			first = c[i].start;
		if (c[i].end > last)
			last = c[i].end;
	}
	printf("children %.0f window %.0f cpu %.3f\n", sum, kb / (last - first), cpu);
	return 0;
}
