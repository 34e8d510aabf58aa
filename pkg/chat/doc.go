// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Package chat is the primary chat loop of a2abus (a user talks to one
// model, which delegates to the agents of the bus): a Session bound to one
// session id runs the model (llm.Loop, the shared tool loop) with the bus
// tools (invoke_agent, list_known_agents, get_from_working_memory, …) over
// the session's conversation in working memory, and runs it again, without
// the user typing, when the notification of a sub-task it started lands
// there — so the model can fetch the result with get_from_working_memory
// and answer.
//
// # The conversation
//
// The conversation is the session's conversation in working memory, the
// one the caller appends notification turns to, so `a2abus conversation
// show` lists every turn in order: user turns (KindUser), assistant turns
// asking for tools (KindToolCalls, the calls as JSON in MetaToolCalls),
// one tool turn per result (KindToolResult, MetaToolCallID; MetaStartedTask
// names the sub-task an invoke_agent call started), notifications
// (caller.KindNotification) and answers (KindAnswer). History maps them
// back to valid Chat Completions messages: an assistant message with
// tool_calls is always followed by exactly its results (a result stored
// after an interleaved notification is moved back next to its call; a call
// whose results are not all stored loses its tool_calls).
//
// Whole steps only: every step of llm.Loop (an assistant message and all
// its tool results, or the final answer) is stored in one batch through
// Loop.OnStep, under once ids, so a model that fails mid-turn never leaves
// a call without its results. A failed run (model unavailable or refusing,
// token budget spent, too many tool rounds) is recorded as one KindError
// turn (MetaError, MetaErrorCode) that people see and the model never does.
//
// # Inputs, cursor and lease
//
// An input is a user turn, or the notification of a sub-task the
// conversation started (a notification about another task — e.g. the
// session's own caller being told a Primary task ended — is neither an
// input nor shown to the model). A run answers every input up to the
// newest turn it saw (its mark N): its answer (or KindError turn) carries
// MetaHandledTo=N and is appended with the once id chat/N/answer in the
// same batch that writes the cursor session/<id>/chat/handled = N. An
// input that arrives while the model runs has a seq above N: it stays
// unhandled and starts the next run as soon as this one ends — queued,
// never lost nor merged into a run that could not see it.
//
// Several processes may run a Session on one session (two `a2abus chat`,
// a chat and the Primary agent). Only the holder of the session's lease
// runs the model: session/<id>/chat/lease is taken with SetIfAbsent and a
// TTL (Options.LeaseTTL), renewed while the run lasts and deleted after
// it. A process that takes the lease re-reads the cursor first, so inputs
// another holder answered are not answered again; a holder that finds no
// input releases the lease, and any process that sees an unhandled input
// (by its subscription, or every PollInterval while a lease is held
// elsewhere) tries to take it, so an input that lands while the lease
// changes hands is still answered, by exactly one of them. Were a holder
// stalled past its lease, the once id of the answer keeps a second answer
// to the same inputs out of the conversation (the stalled run sees its
// answer refused and stops).
//
// # Questions of sub-tasks
//
// A sub-task's agent may end a turn with a question (the task waits for
// input): its notification is an input like any other. The model answers
// it itself when the conversation tells it the answer (invoke_agent with
// task_id; the tool result carries MetaAnsweredTask, and the task's next
// notification is an input again), or asks the user and ends its run. A
// question the model handled without answering is the user's
// (Session.Questions, Settled.Questions; not a failure): while it waits,
// every run's history lists it in a system message after the prompt, so
// the model passes the user's next message on with that task id however
// far back the question is. A task is pending (Pending, Wait) from its
// start, and again from each answer, until the notification of that turn.
//
// # Bounds and front ends
//
// config.ChatConfig bounds the loop: max_tool_rounds per run
// (llm.ErrMaxToolRounds), a token budget per session kept at
// session/<id>/chat/tokens (the model is not asked once it is spent:
// ErrBudgetExhausted), and the history sent to the model: the newest turns
// verbatim within max_history_turns and max_history_chars, the older ones
// summarised extractively into one system message.
//
// Status updates of the sub-tasks this process started (they are invoked
// with Stream) reach the front end as EventStatus through Options.OnEvent,
// never the model's context; EventTurn reports every turn appended;
// EventRun and EventRunEnd bracket each run of the model in this process
// (its retries included: a front end shows it is thinking), and
// EventToolCall reports each tool call as it starts, before its step is
// stored. Tasks lists the sub-tasks with their states, and CallSummary
// names a tool call in one line (`a2abus chat` prints
// "→ invoke_agent SampleAgent.echo"). Wait returns once a user turn, the
// sub-tasks it started and the answers to their notifications are all done.
package chat
