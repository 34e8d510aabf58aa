// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	goredis "github.com/redis/go-redis/v9"

	"github.com/a2abus/a2abus/bus"
	"github.com/a2abus/a2abus/bus/rabbitmq"
	"github.com/a2abus/a2abus/pkg/a2a"
)

// rawChain is the baseline: the same call made with amqp091-go and go-redis
// alone, with the same durability. A request is published persistent,
// mandatory and confirmed to a durable queue; a worker (manual ack) publishes
// a persistent, confirmed response to a durable response queue and then acks;
// a response consumer stores the result (SET EX) and a notification (RPUSH +
// PUBLISH) in one MULTI, acks, and wakes the waiting call. Like the project,
// each side publishes and consumes on separate connections.
type rawChain struct {
	exchange          string
	taskQueue         string // also its routing key
	responseQueue     string // also its routing key
	resultPrefix      string // Redis key prefix of results
	turnsKey, channel string // the notification list and pub/sub channel
	ttl               time.Duration
	recordPrefix      string // Redis key prefix of task records (recorded chains)
	pendingKey        string // the sorted set of pending tasks (recorded chains)
	record            []byte // a task's record; nil: tasks are not recorded
	request, response []byte
	result, turn      []byte
	conns             []*amqp.Connection // all of them, for close
	requests, replies *amqp.Channel      // confirm-mode publish channels of the caller and the worker
	redis             *goredis.Client
	consumers         sync.WaitGroup
	seq               atomic.Uint64
	mu                sync.Mutex
	waiting           map[string]chan error
}

// rawConfig is what newRawChain needs.
type rawConfig struct {
	amqpURL, redisURL   string
	exchange, queueType string
	keyPrefix, runID    string
	redisTimeout, ttl   time.Duration
	// workers and responders are the handlers (and prefetch) of the task
	// and response consumers: the agent's and the caller's concurrency.
	workers, responders int
	sizes               Sizes
	// recorded makes the raw+record chain: each call first records its task
	// in Redis (the record's SET EX and the pending index's ZADD, one round
	// trip), as a2abus's caller does so that a task outlives its caller,
	// then publishes.
	recorded bool
}

// newRawChain connects, declares the raw chain's two queues and starts its
// worker and response consumers (cfg.workers and cfg.responders handlers).
func newRawChain(ctx context.Context, cfg rawConfig) (_ *rawChain, err error) {
	queues := rawQueues(cfg.runID)
	r := &rawChain{
		exchange:      cfg.exchange,
		taskQueue:     queues[0],
		responseQueue: queues[1],
		resultPrefix:  cfg.keyPrefix + "bench:" + cfg.runID + ":raw:result:",
		turnsKey:      cfg.keyPrefix + "bench:" + cfg.runID + ":raw:turns",
		channel:       cfg.keyPrefix + "bench:" + cfg.runID + ":raw:events",
		ttl:           cfg.ttl,
		request:       filler(cfg.sizes.Request),
		response:      filler(cfg.sizes.Response),
		result:        filler(cfg.sizes.Result),
		turn:          filler(cfg.sizes.Notification),
		waiting:       map[string]chan error{},
	}
	if cfg.recorded {
		r.recordPrefix = cfg.keyPrefix + "bench:" + cfg.runID + ":raw:record:"
		r.pendingKey = cfg.keyPrefix + "bench:" + cfg.runID + ":raw:pending"
		r.record = filler(cfg.sizes.Record)
	}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if r.redis, err = dialRedis(ctx, cfg.redisURL, cfg.redisTimeout); err != nil {
		return nil, err
	}
	dial := func(role string) (*amqp.Connection, error) {
		conn, err := dialAMQP(cfg.amqpURL, "a2abus-bench-raw-"+role)
		if err == nil {
			r.conns = append(r.conns, conn)
		}
		return conn, err
	}
	callerPub, err := dial("caller-publish")
	if err != nil {
		return nil, err
	}
	callerSub, err := dial("caller-consume")
	if err != nil {
		return nil, err
	}
	workerPub, err := dial("worker-publish")
	if err != nil {
		return nil, err
	}
	workerSub, err := dial("worker-consume")
	if err != nil {
		return nil, err
	}
	if err := r.declare(callerSub, cfg.queueType); err != nil {
		return nil, err
	}
	if r.requests, err = r.confirmChannel(callerPub); err != nil {
		return nil, err
	}
	if r.replies, err = r.confirmChannel(workerPub); err != nil {
		return nil, err
	}
	if err := r.consume(workerSub, r.taskQueue, cfg.workers, r.handleRequest); err != nil {
		return nil, err
	}
	if err := r.consume(callerSub, r.responseQueue, cfg.responders, r.handleResponse); err != nil {
		return nil, err
	}
	return r, nil
}

// Name is "raw", or "raw+record" for the chain that records its tasks.
func (r *rawChain) Name() string {
	if r.record != nil {
		return rawRecordedChainName
	}
	return "raw"
}

// rawRecordedChainName is the name of the raw chain that records its tasks.
const rawRecordedChainName = "raw+record"

// Call publishes a request and waits until its result is stored.
func (r *rawChain) Call(ctx context.Context) error {
	id := strconv.FormatUint(r.seq.Add(1), 10)
	done := make(chan error, 1)
	r.mu.Lock()
	r.waiting[id] = done
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
	}()
	if r.record != nil {
		_, err := r.redis.Pipelined(ctx, func(p goredis.Pipeliner) error {
			p.Set(ctx, r.recordPrefix+id, r.record, r.ttl)
			p.ZAdd(ctx, r.pendingKey, goredis.Z{Score: float64(time.Now().UnixMilli()), Member: id})
			return nil
		})
		if err != nil {
			return fmt.Errorf("record task %s: %w", id, err)
		}
	}
	err := publishConfirmed(ctx, r.requests, r.exchange, r.taskQueue, amqp.Publishing{
		ContentType: "application/json", DeliveryMode: amqp.Persistent, Type: "task.request",
		MessageId: id, CorrelationId: id, ReplyTo: r.responseQueue, Timestamp: time.Now(), Body: r.request,
	})
	if err != nil {
		return err
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("wait for the result of %s: %w", id, ctx.Err())
	}
}

// handleRequest is the worker: it publishes the response, confirmed, then acks.
func (r *rawChain) handleRequest(d amqp.Delivery) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	err := publishConfirmed(ctx, r.replies, r.exchange, d.ReplyTo, amqp.Publishing{
		ContentType: "application/json", DeliveryMode: amqp.Persistent, Type: "task.result",
		MessageId: d.MessageId + ".result", CorrelationId: d.CorrelationId, Timestamp: time.Now(), Body: r.response,
	})
	if err == nil {
		err = d.Ack(false)
	}
	if err != nil {
		_ = d.Nack(false, true)
		r.wake(d.CorrelationId, fmt.Errorf("worker: %w", err))
	}
}

// handleResponse stores the result and the notification in one MULTI, acks
// and wakes the waiting call.
func (r *rawChain) handleResponse(d amqp.Delivery) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_, err := r.redis.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		p.Set(ctx, r.resultPrefix+d.CorrelationId, r.result, r.ttl)
		p.RPush(ctx, r.turnsKey, r.turn)
		p.Publish(ctx, r.channel, d.CorrelationId)
		return nil
	})
	if err != nil {
		_ = d.Nack(false, true)
		r.wake(d.CorrelationId, fmt.Errorf("store result: %w", err))
		return
	}
	if err := d.Ack(false); err != nil {
		r.wake(d.CorrelationId, fmt.Errorf("ack response: %w", err))
		return
	}
	r.wake(d.CorrelationId, nil)
}

// wake hands err (nil: done) to the call waiting for id, if it still waits.
func (r *rawChain) wake(id string, err error) {
	r.mu.Lock()
	done := r.waiting[id]
	r.mu.Unlock()
	if done != nil {
		select {
		case done <- err:
		default:
		}
	}
}

// declare declares the exchange and the two durable queues with the
// arguments the project gives task and response queues, and binds them.
func (r *rawChain) declare(conn *amqp.Connection, queueType string) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("raw chain: open channel: %w", err)
	}
	defer func() { _ = ch.Close() }()
	if err := ch.ExchangeDeclare(r.exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		return fmt.Errorf("raw chain: declare exchange %q: %w", r.exchange, err)
	}
	dlx := a2a.DeadLetterExchange(r.exchange)
	taskArgs := amqp.Table{"x-dead-letter-exchange": dlx, "x-max-priority": int32(bus.MaxPriority)}
	respArgs := amqp.Table{"x-dead-letter-exchange": dlx}
	if queueType == rabbitmq.QueueTypeQuorum { // quorum queues have no priorities
		delete(taskArgs, "x-max-priority")
		taskArgs["x-queue-type"], respArgs["x-queue-type"] = rabbitmq.QueueTypeQuorum, rabbitmq.QueueTypeQuorum
	}
	for _, q := range []struct {
		name string
		args amqp.Table
	}{{r.taskQueue, taskArgs}, {r.responseQueue, respArgs}} {
		if _, err := ch.QueueDeclare(q.name, true, false, false, false, q.args); err != nil {
			return fmt.Errorf("raw chain: declare queue %q: %w", q.name, err)
		}
		if err := ch.QueueBind(q.name, q.name, r.exchange, false, nil); err != nil {
			return fmt.Errorf("raw chain: bind queue %q: %w", q.name, err)
		}
	}
	return nil
}

// confirmChannel opens a confirm-mode channel on conn whose returned
// (unroutable) messages fail the call they belong to.
func (r *rawChain) confirmChannel(conn *amqp.Connection) (*amqp.Channel, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("raw chain: open publish channel: %w", err)
	}
	if err := ch.Confirm(false); err != nil {
		return nil, fmt.Errorf("raw chain: enable confirms: %w", err)
	}
	returns := ch.NotifyReturn(make(chan amqp.Return, 16))
	go func() {
		for ret := range returns {
			r.wake(ret.CorrelationId, fmt.Errorf("message to %q returned: %d %s", ret.RoutingKey, ret.ReplyCode, ret.ReplyText))
		}
	}()
	return ch, nil
}

// consume subscribes to queue with prefetch n and runs h on n goroutines.
func (r *rawChain) consume(conn *amqp.Connection, queue string, n int, h func(amqp.Delivery)) error {
	ch, err := conn.Channel()
	if err != nil {
		return fmt.Errorf("raw chain: open consume channel: %w", err)
	}
	if err := ch.Qos(n, 0, false); err != nil {
		return fmt.Errorf("raw chain: set prefetch on %q: %w", queue, err)
	}
	deliveries, err := ch.Consume(queue, "", false, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("raw chain: consume %q: %w", queue, err)
	}
	for range n {
		r.consumers.Go(func() {
			for d := range deliveries {
				h(d)
			}
		})
	}
	return nil
}

// rawQueues are the names of the raw chain's task and response queues in run runID.
func rawQueues(runID string) []string {
	return []string{"bench.raw." + runID + ".task", "bench.raw." + runID + ".response"}
}

// close closes the connections (ending the consumers) and the Redis client.
func (r *rawChain) close() {
	for _, c := range r.conns {
		_ = c.Close()
	}
	r.consumers.Wait()
	if r.redis != nil {
		_ = r.redis.Close()
	}
}

// publishConfirmed publishes pub persistent and mandatory and waits for the broker's ack.
func publishConfirmed(ctx context.Context, ch *amqp.Channel, exchange, key string, pub amqp.Publishing) error {
	dc, err := ch.PublishWithDeferredConfirm(exchange, key, true, false, pub)
	if err != nil {
		return fmt.Errorf("publish to %q: %w", key, err)
	}
	ok, err := dc.WaitContext(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("confirm of publish to %q: %w", key, err)
	case !ok:
		return fmt.Errorf("publish to %q: %w", key, errNacked)
	}
	return nil
}

// errNacked: the broker refused a publish.
var errNacked = errors.New("bench: broker nacked the publish")

// dialAMQP opens one named connection, bounded by dialTimeout.
func dialAMQP(url, name string) (*amqp.Connection, error) {
	props := amqp.NewConnectionProperties()
	props.SetClientConnectionName(name)
	conn, err := amqp.DialConfig(url, amqp.Config{Dial: amqp.DefaultDial(dialTimeout), Properties: props})
	if err != nil {
		return nil, fmt.Errorf("raw chain: connect to RabbitMQ at %s: %w", rabbitmq.RedactURL(url), err)
	}
	return conn, nil
}

// dialRedis opens a go-redis client as memory/redismem does (same timeouts, no
// retries) and pings it.
func dialRedis(ctx context.Context, url string, timeout time.Duration) (*goredis.Client, error) {
	opt, err := goredis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("%w: redis URL: %v", ErrInvalidOptions, redactedParseErr(err))
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.PoolTimeout = timeout, timeout, timeout, timeout
	opt.ContextTimeoutEnabled = true
	opt.MaxRetries = -1
	c := goredis.NewClient(opt)
	pingCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.Ping(pingCtx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect to Redis at %s: %w", opt.Addr, err)
	}
	return c, nil
}

// filler is n bytes of a JSON string, the stand-in body of the raw chain.
func filler(n int) []byte {
	if n < 2 {
		return bytes.Repeat([]byte("x"), n)
	}
	b := bytes.Repeat([]byte("x"), n)
	b[0], b[n-1] = '"', '"'
	return b
}
