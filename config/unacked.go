// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package config

// validateUnacked checks the keys that bound how long a delivery stays
// unacked against bus.consumer_timeout, RabbitMQ's limit: a delivery unacked
// for that long makes the broker close its channel and redeliver it, so a
// task would run again and a result be handled twice. A task that may run
// longer than the broker allows is refused here, not discovered in production.
func (c *Config) validateUnacked() []error {
	errs := []error{
		positive("bus.consumer_timeout", c.Bus.ConsumerTimeout),
		positive("agent.max_task_duration", c.Agent.MaxTaskDuration),
		positive("caller.memory_retry_bound", c.Caller.MemoryRetryBound),
	}
	ct, task := c.Bus.ConsumerTimeout, c.Agent.MaxTaskDuration
	if ct > 0 && task >= ct {
		errs = append(errs, invalid("agent.max_task_duration",
			"must be below bus.consumer_timeout (%s), got %s: a task's delivery stays unacked while it runs; "+
				"lower it, or raise RabbitMQ's consumer_timeout and bus.consumer_timeout with it", ct, task))
	}
	if retry := c.Caller.MemoryRetryBound; ct > 0 && retry >= ct {
		errs = append(errs, invalid("caller.memory_retry_bound",
			"must be below bus.consumer_timeout (%s), got %s: a result's delivery stays unacked while it waits for working memory", ct, retry))
	}
	if task > 0 && c.Caller.MaxTimeout > task {
		errs = append(errs, invalid("caller.max_timeout",
			"must not exceed agent.max_task_duration (%s), got %s: a task the caller allows could not finish before the agent cuts it off",
			task, c.Caller.MaxTimeout))
	}
	if task > 0 && c.Agent.StopTimeout >= task {
		errs = append(errs, invalid("agent.stop_timeout",
			"must be below agent.max_task_duration (%s), got %s: stopping waits this long for in-flight tasks before requeueing them, "+
				"and a wait as long as a whole task bounds nothing", task, c.Agent.StopTimeout))
	}
	return errs
}
