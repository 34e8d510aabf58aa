// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

// Ports are drawn below Linux's ephemeral range (32768–60999), where the
// other clients' outgoing connections could hold them, and away from the
// shared broker's 5672 and distribution port 25672.
const (
	portMin = 20000
	portMax = 32000
)

// freePort returns a port on 127.0.0.1 nothing listens on now, not in avoid.
func freePort(avoid ...int) (int, error) {
	for range 200 {
		p := portMin + rand.IntN(portMax-portMin)
		if p == 25672 || slices.Contains(avoid, p) {
			continue
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		_ = l.Close()
		return p, nil
	}
	return 0, errors.New("soak: no free port found")
}

// waitFor calls ready every 200ms until it returns nil, or returns its last
// error once ctx ends or limit passes.
func waitFor(ctx context.Context, limit time.Duration, what string, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("soak: %s not ready within %s: %w", what, limit, err)
		case <-tick.C:
		}
	}
}

// Redis is a private redis-server, a child process.
type Redis struct {
	// URL is its redis:// URL.
	URL  string
	cmd  *exec.Cmd
	done chan error
}

// StartRedis starts redis-server on a free port, without persistence, logging into dir.
func StartRedis(ctx context.Context, dir string) (*Redis, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	return startRedis(ctx, dir, "redis://"+addr+"/0", &redis.Options{Addr: addr}, "--port", strconv.Itoa(port))
}

// StartReplica starts redis-server on a free port as a replica of the Redis
// at primary (host:port), without persistence, logging into dir; it waits
// until it answers, not until it has synchronised.
func StartReplica(ctx context.Context, dir, primary string) (*Redis, error) {
	host, pport, err := net.SplitHostPort(primary)
	if err != nil {
		return nil, fmt.Errorf("soak: replica of %q: %w", primary, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	return startRedis(ctx, dir, "redis://"+addr+"/0", &redis.Options{Addr: addr}, "--port", strconv.Itoa(port), "--replicaof", host, pport)
}

// Addr is the Redis's host:port.
func (r *Redis) Addr() string {
	opt, err := redis.ParseURL(r.URL)
	if err != nil {
		return ""
	}
	return opt.Addr
}

// Admin is a new client of the Redis (a test's, to change its ACL or read
// its stats); the caller closes it.
func (r *Redis) Admin() *redis.Client { return redis.NewClient(&redis.Options{Addr: r.Addr()}) }

// Kill kill -9s redis-server (a crash: nothing more reaches its replicas) and waits for it.
func (r *Redis) Kill() {
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
	<-r.done
	r.done <- nil // for Stop, which waits again
}

// startRedis starts redis-server with listen (its port arguments), without
// persistence, logging into dir, and waits until ping (a client's options)
// answers; url is the Redis's URL.
func startRedis(ctx context.Context, dir, url string, ping *redis.Options, listen ...string) (*Redis, error) {
	logf, err := os.Create(filepath.Join(dir, "redis.log"))
	if err != nil {
		return nil, fmt.Errorf("soak: redis log: %w", err)
	}
	defer func() { _ = logf.Close() }()
	cmd := exec.Command("redis-server", append(listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--dir", dir)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("soak: start redis-server: %w", err)
	}
	r := &Redis{URL: url, cmd: cmd, done: make(chan error, 1)}
	go func() { r.done <- cmd.Wait() }()
	rdb := redis.NewClient(ping)
	defer func() { _ = rdb.Close() }()
	if err := waitFor(ctx, 20*time.Second, "redis", func(ctx context.Context) error {
		select {
		case err := <-r.done:
			return fmt.Errorf("redis-server exited: %v (see %s)", err, filepath.Join(dir, "redis.log"))
		default:
		}
		return rdb.Ping(ctx).Err()
	}); err != nil {
		r.Stop()
		return nil, err
	}
	return r, nil
}

// Stop terminates redis-server and waits for it.
func (r *Redis) Stop() {
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
	}
}

// Broker is a private RabbitMQ node on this machine, a child process,
// driven with its own rabbitmqctl -n.
type Broker struct {
	// URL is its amqp:// URL.
	URL  string
	Node string
	dir  string
	bin  string
	cmd  *exec.Cmd
	done chan error
	log  *zap.Logger
}

// rabbitBin is the folder of the RabbitMQ scripts run directly (the
// /usr/sbin wrappers switch to the rabbitmq user and its cookie).
func rabbitBin() string {
	const lib = "/usr/lib/rabbitmq/bin"
	if _, err := os.Stat(filepath.Join(lib, "rabbitmq-server")); err == nil {
		return lib
	}
	if p, err := exec.LookPath("rabbitmq-server"); err == nil {
		return filepath.Dir(p)
	}
	return lib
}

// StartBroker starts a RabbitMQ node named soak-<pid>@localhost in dir,
// its AMQP listener and distribution on free ports, no plugins, its own
// cookie (HOME=dir/home), and waits until it runs.
func StartBroker(ctx context.Context, dir string, log *zap.Logger) (*Broker, error) {
	return startBroker(ctx, dir, log, nil)
}

// startBroker is StartBroker; extra, when not nil, returns more
// rabbitmq.conf lines, given the ports taken so far.
func startBroker(ctx context.Context, dir string, log *zap.Logger, extra func(taken ...int) (string, error)) (*Broker, error) {
	amqpPort, err := freePort()
	if err != nil {
		return nil, err
	}
	distPort, err := freePort(amqpPort)
	if err != nil {
		return nil, err
	}
	b := &Broker{
		URL: fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", amqpPort), Node: fmt.Sprintf("soak-%d@localhost", os.Getpid()),
		dir: dir, bin: rabbitBin(), done: make(chan error, 1), log: log,
	}
	for _, d := range []string{"mnesia", "log", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, fmt.Errorf("soak: broker dir: %w", err)
		}
	}
	conf := fmt.Sprintf("listeners.tcp.local = 127.0.0.1:%d\nloopback_users = none\nconsumer_timeout = 3600000\n", amqpPort)
	if extra != nil {
		more, err := extra(amqpPort, distPort)
		if err != nil {
			return nil, err
		}
		conf += more
	}
	files := map[string]string{"rabbitmq.conf": conf, "enabled_plugins": "[].\n", "rabbitmq-env.conf": ""}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return nil, fmt.Errorf("soak: broker %s: %w", name, err)
		}
	}
	logf, err := os.Create(filepath.Join(dir, "broker.out"))
	if err != nil {
		return nil, fmt.Errorf("soak: broker output: %w", err)
	}
	defer func() { _ = logf.Close() }()
	cmd := exec.Command(filepath.Join(b.bin, "rabbitmq-server"))
	cmd.Env = append(b.env(),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq.conf"),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(distPort),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"ERL_EPMD_ADDRESS=127.0.0.1",
	)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("soak: start rabbitmq-server: %w", err)
	}
	b.cmd = cmd
	go func() { b.done <- cmd.Wait() }()
	if _, err := b.Ctl(ctx, 150*time.Second, "wait", b.pidFile(), "--timeout", "120"); err != nil {
		b.Stop(ctx)
		return nil, fmt.Errorf("soak: private broker did not start (see %s): %w", filepath.Join(dir, "broker.out"), err)
	}
	return b, nil
}

func (b *Broker) pidFile() string { return filepath.Join(b.dir, "pid") }

// env is the environment of the node and of rabbitmqctl: its name, its cookie's home, no system env file.
func (b *Broker) env() []string {
	return append(os.Environ(), "HOME="+filepath.Join(b.dir, "home"), "RABBITMQ_NODENAME="+b.Node,
		"RABBITMQ_PID_FILE="+b.pidFile(), "RABBITMQ_CONF_ENV_FILE="+filepath.Join(b.dir, "rabbitmq-env.conf"))
}

// Ctl runs rabbitmqctl -n <node> args within limit and returns its output.
func (b *Broker) Ctl(ctx context.Context, limit time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(b.bin, "rabbitmqctl"), append([]string{"-n", b.Node}, args...)...)
	cmd.Env = b.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("rabbitmqctl %s: %w: %s", strings.Join(args, " "), err, lastLines(string(out), 3))
	}
	return string(out), nil
}

// QueueDepths lists the node's queues with their message counts.
func (b *Broker) QueueDepths(ctx context.Context) (map[string]int, error) {
	out, err := b.Ctl(ctx, 30*time.Second, "list_queues", "-q", "name", "messages")
	if err != nil {
		return nil, err
	}
	depths := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue // a header line
		}
		depths[f[0]] = n
	}
	return depths, nil
}

// Stop stops the node (rabbitmqctl stop), killing it if it does not stop in time.
func (b *Broker) Stop(ctx context.Context) {
	if b.cmd == nil {
		return
	}
	if _, err := b.Ctl(ctx, 60*time.Second, "stop"); err != nil {
		b.log.Warn("private broker did not stop cleanly: killing it", zap.Error(err))
	}
	select {
	case <-b.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.done
	}
}

// lastLines is the last n non-empty lines of s, joined.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}
