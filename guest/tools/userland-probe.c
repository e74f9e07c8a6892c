// SPDX-License-Identifier: MIT
// gbvp-userland-probe: uses, in the guest, the kernel interfaces a distribution's userland
// takes for granted (systemd, udev, glib's and libgpiod's event loops) and that tinyconfig
// leaves out: eventfd, timerfd, signalfd, epoll, inotify, fanotify, file handles, AF_UNIX,
// the uevent netlink socket, memfd, POSIX message queues, System V IPC, namespaces. Each
// check prints "ok NAME: what it saw" or "FAIL NAME: why" (errno text: ENOSYS is the usual
// one on a kernel without the option). Exit status: the number of failed checks (0: all
// passed). Built statically into the initramfs by scripts/build-guest.sh.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <mqueue.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/sem.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures;

static void ok(const char *name, const char *what)
{
    printf("ok %s: %s\n", name, what);
}

static void fail(const char *name, const char *what)
{
    printf("FAIL %s: %s: %s\n", name, what, strerror(errno));
    failures++;
}

/* eventfd, timerfd and epoll together: the shape of every event loop. */
static void check_event_loop(void)
{
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (efd < 0) {
        fail("eventfd", "eventfd()");
        return;
    }
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (tfd < 0) {
        fail("timerfd", "timerfd_create()");
        close(efd);
        return;
    }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        fail("epoll", "epoll_create1()");
        close(efd);
        close(tfd);
        return;
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 1 };
    struct epoll_event tev = { .events = EPOLLIN, .data.u32 = 2 };
    if (epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev) || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &tev)) {
        fail("epoll", "epoll_ctl(ADD)");
        goto out;
    }
    uint64_t v = 3;
    if (write(efd, &v, sizeof v) != sizeof v) {
        fail("eventfd", "write");
        goto out;
    }
    struct epoll_event got[2];
    if (epoll_wait(ep, got, 2, 1000) != 1 || got[0].data.u32 != 1) {
        fail("epoll", "epoll_wait did not report the eventfd alone");
        goto out;
    }
    if (read(efd, &v, sizeof v) != sizeof v || v != 3) {
        fail("eventfd", "read back a counter of 3");
        goto out;
    }
    ok("eventfd", "counter 3 written, seen by epoll, read back");
    struct itimerspec its = { .it_value = { .tv_nsec = 20 * 1000 * 1000 } };
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (timerfd_settime(tfd, 0, &its, NULL)) {
        fail("timerfd", "timerfd_settime(20 ms)");
        goto out;
    }
    if (epoll_wait(ep, got, 2, 2000) != 1 || got[0].data.u32 != 2) {
        fail("epoll", "epoll_wait did not report the timerfd within 2 s");
        goto out;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (read(tfd, &v, sizeof v) != sizeof v || v < 1 || ms < 19) {
        errno = 0;
        fail("timerfd", "expiry count or time wrong");
        goto out;
    }
    char what[96];
    snprintf(what, sizeof what, "20 ms timer expired after %ld ms, seen by epoll", ms);
    ok("timerfd", what);
    ok("epoll", "one epoll set waited on an eventfd and a timerfd");
out:
    close(ep);
    close(tfd);
    close(efd);
}

/* signalfd: a blocked signal read as a record, as gpiomon and systemd take SIGINT/SIGTERM. */
static void check_signalfd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);
    if (sfd < 0) {
        fail("signalfd", "signalfd()");
        return;
    }
    kill(getpid(), SIGUSR1);
    struct signalfd_siginfo si;
    struct pollfd p = { .fd = sfd, .events = POLLIN };
    if (poll(&p, 1, 1000) != 1 || read(sfd, &si, sizeof si) != sizeof si || si.ssi_signo != SIGUSR1)
        fail("signalfd", "SIGUSR1 not read from the signalfd");
    else
        ok("signalfd", "SIGUSR1 read as a signalfd record");
    close(sfd);
}

/* inotify on a tmpfs directory, and fanotify's group creation. */
static void check_notify(void)
{
    char dir[] = "/tmp/gbvp-probe.XXXXXX";
    if (!mkdtemp(dir)) {
        fail("inotify", "mkdtemp in /tmp");
        return;
    }
    int in = inotify_init1(IN_CLOEXEC);
    if (in < 0) {
        fail("inotify", "inotify_init1()");
    } else if (inotify_add_watch(in, dir, IN_CREATE) < 0) {
        fail("inotify", "inotify_add_watch()");
    } else {
        char path[64];
        snprintf(path, sizeof path, "%s/new", dir);
        close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        char buf[512] __attribute__((aligned(8)));
        struct pollfd p = { .fd = in, .events = POLLIN };
        ssize_t n = poll(&p, 1, 1000) == 1 ? read(in, buf, sizeof buf) : -1;
        const struct inotify_event *e = (const void *)buf;
        if (n < (ssize_t)sizeof *e || !(e->mask & IN_CREATE) || strcmp(e->name, "new"))
            fail("inotify", "no IN_CREATE for the new file");
        else
            ok("inotify", "IN_CREATE seen for a file created in a watched directory");
        unlink(path);
    }
    if (in >= 0)
        close(in);
    rmdir(dir);
    int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);
    if (fan < 0) {
        fail("fanotify", "fanotify_init()");
    } else {
        ok("fanotify", "a notification group created");
        close(fan);
    }
}

/* What udev and systemd need besides: sockets, file handles, memfd, IPC, namespaces. */
static void check_system(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
        fail("af_unix", "socketpair(AF_UNIX, SOCK_SEQPACKET)");
    } else {
        char c = 0;
        if (write(sv[0], "u", 1) != 1 || read(sv[1], &c, 1) != 1 || c != 'u')
            fail("af_unix", "a byte through the socket pair");
        else
            ok("af_unix", "a byte through a SOCK_SEQPACKET pair");
        close(sv[0]);
        close(sv[1]);
    }
    int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
    struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
    if (nl < 0 || bind(nl, (struct sockaddr *)&sa, sizeof sa))
        fail("uevent_netlink", "NETLINK_KOBJECT_UEVENT socket bound to the kernel's group");
    else
        ok("uevent_netlink", "a NETLINK_KOBJECT_UEVENT socket bound (udev's uevent source)");
    if (nl >= 0)
        close(nl);
    struct {
        struct file_handle fh;
        unsigned char room[128];
    } h = { .fh.handle_bytes = 128 };
    int mount_id;
    if (name_to_handle_at(AT_FDCWD, "/tmp", &h.fh, &mount_id, 0))
        fail("fhandle", "name_to_handle_at(/tmp)");
    else
        ok("fhandle", "name_to_handle_at(/tmp) gave a file handle");
    int mfd = memfd_create("gbvp-probe", MFD_CLOEXEC);
    if (mfd < 0 || ftruncate(mfd, 4096))
        fail("memfd", "memfd_create + ftruncate");
    else
        ok("memfd", "memfd_create + ftruncate 4096");
    if (mfd >= 0)
        close(mfd);
    struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 16 };
    mqd_t q = mq_open("/gbvp-probe", O_CREAT | O_RDWR | O_CLOEXEC, 0600, &attr);
    if (q == (mqd_t)-1) {
        fail("posix_mqueue", "mq_open()");
    } else {
        ok("posix_mqueue", "a message queue opened");
        mq_close(q);
        mq_unlink("/gbvp-probe");
    }
    int sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    if (sem < 0) {
        fail("sysvipc", "semget()");
    } else {
        ok("sysvipc", "a System V semaphore set created");
        semctl(sem, 0, IPC_RMID);
    }
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET) ? 1 : 0);
    int st = 1;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
        errno = 0;
        fail("namespaces", "unshare(UTS, IPC, mount, PID, net) in a child");
    } else {
        ok("namespaces", "unshare(UTS, IPC, mount, PID, net) in a child");
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_event_loop();
    check_signalfd();
    check_notify();
    check_system();
    printf("%d failed\n", failures);
    return failures;
}
