// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// The working-memory schema: every key, index, List prefix, AppendTurnOnce
// id and derived session id the project uses is built by a function of this
// file, and nowhere else (a test fails when another package formats one).
// docs/memory.md is its table: what each key holds, its TTL, who writes it
// and who reads it. Each builder checks its parts, so distinct inputs never
// give the same key and no part can add a "/" segment; a bad part is an
// error wrapping ErrInvalidKey (ErrInvalidArgument for an index member)
// that names it. The strings are stable: data already stored is read with
// the same keys after an upgrade.

// Roots and segments of the schema.
const (
	rootSession   = "session/"    // per-session keys: results, owner, grants, call history, chat state
	rootA2A       = "a2a/"        // a caller's and an agent's own state: task records, claims, pending and cancel indexes
	rootWorkflow  = "workflow/"   // a workflow run's state
	rootConverse  = "converse/"   // an orchestrated conversation's record
	onceNotify    = "a2a-notify/" // AppendTurnOnce ids of the caller's notification turns
	onceChat      = "chat/"       // AppendTurnOnce ids of a chat's answers and tool steps
	oncePrimary   = "primary/"    // AppendTurnOnce ids of the Primary's request turns
	sessionWF     = "wf-"         // the session of a workflow run's steps
	sessionCV     = "converse-"   // the session of a conversation's calls
	controlSuffix = ".control"    // the session of a conversation's control log
)

// ResultKeyTemplate is the shape of ResultKey's keys, as a URI template
// (RFC 6570) names its parts.
const ResultKeyTemplate = rootSession + "{session}/a2a/{agent}/{task}/result"

// partRule is the rule of a key part that has no rule of its own (a run,
// step or conversation id): a letter or digit, then up to 127 letters,
// digits, '_', '.', ':' or '-', never "..".
const partRule = `^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`

// partPattern is partRule without its length, checked apart: a counted
// repetition compiles to a program of one step per count, which every
// process built at start (150 KB, 2,000 allocations).
var partPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*$`)

func validatePart(what, part string) error {
	if len(part) > 128 || !partPattern.MatchString(part) || strings.Contains(part, "..") {
		return invalidKey(what, part, "must match "+partRule+" without \"..\"")
	}
	return nil
}

func validateSession(id string) (string, error) {
	if err := ValidateSessionID(id); err != nil {
		return "", err
	}
	return id, nil
}

func validateAgent(what, name string) error {
	if err := a2a.ValidateAgentName(name); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrInvalidKey, what, err)
	}
	return nil
}

func validateTask(id string) error {
	if err := a2a.ValidateTaskID(id); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return nil
}

// ---- Keys of a session: session/<id>/… ----

// SessionPrefix is the List prefix of every key of session id: "session/<id>/".
func SessionPrefix(id string) (string, error) {
	if _, err := validateSession(id); err != nil {
		return "", err
	}
	return rootSession + id + "/", nil
}

// ResultPrefix is the List prefix of the results of agentName's tasks in
// session sessionID: "session/<sessionID>/a2a/<agentName>/".
func ResultPrefix(sessionID, agentName string) (string, error) {
	if _, err := validateSession(sessionID); err != nil {
		return "", err
	}
	if err := validateAgent("agent", agentName); err != nil {
		return "", err
	}
	return rootSession + sessionID + "/a2a/" + agentName + "/", nil
}

// ResultKey is the key of the result of task taskID run by agentName for
// session sessionID: "session/<sessionID>/a2a/<agentName>/<taskID>/result".
// None of the three parts may contain "/", so distinct inputs never collide.
func ResultKey(sessionID, agentName, taskID string) (string, error) {
	if _, err := validateSession(sessionID); err != nil {
		return "", err
	}
	if err := validateAgent("agent", agentName); err != nil {
		return "", err
	}
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return rootSession + sessionID + "/a2a/" + agentName + "/" + taskID + "/result", nil
}

// ParseResultKey splits a ResultKey into its session, agent and task; ok is
// false for a key ResultKey did not make.
func ParseResultKey(key string) (sessionID, agentName, taskID string, ok bool) {
	parts := strings.Split(key, "/")
	if len(parts) != 6 || parts[0]+"/" != rootSession || parts[2] != "a2a" || parts[5] != "result" {
		return "", "", "", false
	}
	if again, err := ResultKey(parts[1], parts[3], parts[4]); err != nil || again != key {
		return "", "", "", false
	}
	return parts[1], parts[3], parts[4], true
}

// SessionOwnerKey is the key of the caller that owns session id:
// "session/<id>/a2a-owner".
func SessionOwnerKey(id string) (string, error) {
	if _, err := validateSession(id); err != nil {
		return "", err
	}
	return rootSession + id + "/a2a-owner", nil
}

// SessionGrantKey is the key of agent's grant to start tasks in session id:
// "session/<id>/a2a-grants/<agent in lower case>" (agent names ignore case).
func SessionGrantKey(id, agent string) (string, error) {
	if _, err := validateSession(id); err != nil {
		return "", err
	}
	if err := validateAgent("agent", agent); err != nil {
		return "", err
	}
	return rootSession + id + "/a2a-grants/" + strings.ToLower(agent), nil
}

// CallHistoryPrefix is the List prefix of session id's call history:
// "session/<id>/calls/".
func CallHistoryPrefix(id string) (string, error) {
	if _, err := validateSession(id); err != nil {
		return "", err
	}
	return rootSession + id + "/calls/", nil
}

// CallHistoryKey is the key of task taskID's entry in session id's call
// history: "session/<id>/calls/<taskID>".
func CallHistoryKey(id, taskID string) (string, error) {
	if _, err := validateSession(id); err != nil {
		return "", err
	}
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return rootSession + id + "/calls/" + taskID, nil
}

// AuditStreamKey is the stream the callers export their audit records to
// (caller.Options.AuditStreamMaxLen; a Redis stream, not a value: read it
// with XRANGE or XREAD, not Get): "audit/stream".
const AuditStreamKey = "audit/stream"

// ContextHistoryKey is the key of the history of context contextID in
// session sessionID — the request messages and final answers of its
// finished tasks, which the next task of the context carries:
// "session/<sessionID>/contexts/<contextID>". The context id follows the
// rule of a session id (a2a.ValidateContextID).
func ContextHistoryKey(sessionID, contextID string) (string, error) {
	if _, err := validateSession(sessionID); err != nil {
		return "", err
	}
	if err := a2a.ValidateContextID(contextID); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return rootSession + sessionID + "/contexts/" + contextID, nil
}

// CallerContextKey is the key of the caller's context of task taskID in
// session sessionID, when it was too large to travel in the request (the
// request names the key in its callerContext): "session/<sessionID>/caller-context/<taskID>".
func CallerContextKey(sessionID, taskID string) (string, error) {
	if _, err := validateSession(sessionID); err != nil {
		return "", err
	}
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return rootSession + sessionID + "/caller-context/" + taskID, nil
}

// ChatKeys are the keys of one session's chat state.
type ChatKeys struct {
	// Lease: "session/<id>/chat/lease", the holder of the right to run the model.
	Lease string
	// Handled: "session/<id>/chat/handled", the cursor: inputs up to this seq were handled.
	Handled string
	// Tokens: "session/<id>/chat/tokens", the tokens the session has spent.
	Tokens string
}

// ChatStateKeys returns the keys of session id's chat state.
func ChatStateKeys(id string) (ChatKeys, error) {
	prefix, err := SessionPrefix(id)
	if err != nil {
		return ChatKeys{}, err
	}
	p := prefix + "chat/"
	return ChatKeys{Lease: p + "lease", Handled: p + "handled", Tokens: p + "tokens"}, nil
}

// ---- A caller's and an agent's own state: a2a/… ----

// TaskRecordKey is the key of the record of task taskID started by caller:
// "a2a/tasks/<caller>/<taskID>".
func TaskRecordKey(caller, taskID string) (string, error) {
	return callerTaskKey("tasks/", caller, taskID)
}

// TaskClaimKey is the key of who finalized task taskID of caller first:
// "a2a/final/<caller>/<taskID>".
func TaskClaimKey(caller, taskID string) (string, error) {
	return callerTaskKey("final/", caller, taskID)
}

// TaskLateClaimKey is the key of which real result replaced the TIMEOUT of
// task taskID of caller: "a2a/final/<caller>/<taskID>/late".
func TaskLateClaimKey(caller, taskID string) (string, error) {
	key, err := callerTaskKey("final/", caller, taskID)
	if err != nil {
		return "", err
	}
	return key + "/late", nil
}

// TaskWaitKey is the key of what task taskID of caller waits for — the
// latest question its agent asked and the task's history up to it:
// "a2a/tasks/<caller>/<taskID>/wait".
func TaskWaitKey(caller, taskID string) (string, error) {
	key, err := callerTaskKey("tasks/", caller, taskID)
	if err != nil {
		return "", err
	}
	return key + "/wait", nil
}

// TaskTakenKey is the key of the mark that an agent took task taskID of
// caller from its queue (a status of it reached the caller), which tells
// a task that ran out of its run time from one no agent took in time:
// "a2a/tasks/<caller>/<taskID>/taken".
func TaskTakenKey(caller, taskID string) (string, error) {
	key, err := callerTaskKey("tasks/", caller, taskID)
	if err != nil {
		return "", err
	}
	return key + "/taken", nil
}

// TaskTurnKey is the key of how turn turn (1 or more) of task taskID of
// caller started — the caller's answer that started it, or the end of the
// wait for one (a timeout, a cancel); it is set once, so it is also the
// claim of that start: "a2a/tasks/<caller>/<taskID>/turns/<turn>".
func TaskTurnKey(caller, taskID string, turn int) (string, error) {
	key, err := callerTaskKey("tasks/", caller, taskID)
	if err != nil {
		return "", err
	}
	if turn < 1 {
		return "", invalidKey("turn", strconv.Itoa(turn), "must be 1 or more (turn 0 starts with the task)")
	}
	return key + "/turns/" + strconv.Itoa(turn), nil
}

// TaskTurnClaimKey is the key of who ended turn turn of task taskID of
// caller first (a question, a final answer, a timeout): TaskClaimKey for
// turn 0, "a2a/final/<caller>/<taskID>/turn/<turn>" for a later one.
func TaskTurnClaimKey(caller, taskID string, turn int) (string, error) {
	key, err := TaskClaimKey(caller, taskID)
	switch {
	case err != nil:
		return "", err
	case turn < 0:
		return "", invalidKey("turn", strconv.Itoa(turn), "is negative")
	case turn == 0:
		return key, nil
	}
	return key + "/turn/" + strconv.Itoa(turn), nil
}

// TaskTurnLateClaimKey is the key of which real result replaced the
// TIMEOUT of turn turn of task taskID of caller: TaskLateClaimKey for turn
// 0, "a2a/final/<caller>/<taskID>/turn/<turn>/late" for a later one.
func TaskTurnLateClaimKey(caller, taskID string, turn int) (string, error) {
	if turn == 0 {
		return TaskLateClaimKey(caller, taskID)
	}
	key, err := TaskTurnClaimKey(caller, taskID, turn)
	if err != nil {
		return "", err
	}
	return key + "/late", nil
}

// TaskOwnerKey is the key of the caller of task taskID while the task
// waits for input, so that another caller's answer is refused by name:
// "a2a/owners/<taskID>".
func TaskOwnerKey(taskID string) (string, error) {
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return rootA2A + "owners/" + taskID, nil
}

func callerTaskKey(kind, caller, taskID string) (string, error) {
	if err := validateAgent("caller", caller); err != nil {
		return "", err
	}
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return rootA2A + kind + caller + "/" + taskID, nil
}

// PendingIndex is the index of caller's unfinished tasks by deadline (Unix
// ms), members their task ids: "a2a/pending/<caller>".
func PendingIndex(caller string) (string, error) {
	if err := validateAgent("caller", caller); err != nil {
		return "", err
	}
	return rootA2A + "pending/" + caller, nil
}

// CancelIndex is the index of the tasks canceled for agent,
// "a2a/canceled/<agent>": a caller that cancels a task adds
// CancelMember(taskID, caller), scored by when the cancel may be forgotten
// (Unix ms), so that an instance of agent that starts later skips the task.
func CancelIndex(agent string) (string, error) {
	if err := a2a.ValidateAgentName(agent); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidKey, err)
	}
	return rootA2A + "canceled/" + agent, nil
}

// CancelMember is the CancelIndex member of task taskID canceled by caller:
// "<taskID>/<caller>".
func CancelMember(taskID, caller string) (string, error) {
	if err := a2a.ValidateTaskID(taskID); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	if err := a2a.ValidateAgentName(caller); err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalidArgument, err)
	}
	return taskID + "/" + caller, nil
}

// ParseCancelMember splits a CancelIndex member into its task id and caller;
// ok is false for a member CancelMember did not make.
func ParseCancelMember(member string) (taskID, caller string, ok bool) {
	i := strings.LastIndexByte(member, '/')
	if i <= 0 || i == len(member)-1 {
		return "", "", false
	}
	taskID, caller = member[:i], member[i+1:]
	if a2a.ValidateTaskID(taskID) != nil || a2a.ValidateAgentName(caller) != nil {
		return "", "", false
	}
	return taskID, caller, true
}

// exchangePattern is bus.exchange's rule (config validates it; the key
// checks it again), 1 to 200 of them: the length is checked apart (see
// partPattern).
var exchangePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// DirectoryListingKey is the key of the agent listing the directories of
// the deployment on exchange share (a known-agents document, the format of
// directory.known_agents_file): "a2a/directory/<exchange>/known-agents".
func DirectoryListingKey(exchange string) (string, error) {
	if len(exchange) > 200 || !exchangePattern.MatchString(exchange) || exchange == "." || exchange == ".." {
		return "", invalidKey("exchange", exchange, "must be 1 to 200 of [A-Za-z0-9_.-], and neither \".\" nor \"..\"")
	}
	return rootA2A + "directory/" + exchange + "/known-agents", nil
}

// GatewayTasksIndex is the index of the tasks the A2A gateway sent for
// caller (a principal), newest first (scored by minus the time they were sent,
// Unix µs): "a2a/gateway/tasks/<caller>". ListTasks reads it.
func GatewayTasksIndex(caller string) (string, error) {
	if err := validateAgent("caller", caller); err != nil {
		return "", err
	}
	return rootA2A + "gateway/tasks/" + caller, nil
}

// GatewayPushKey is the key of the push notification configs a client of
// the A2A gateway set on task taskID of caller: "a2a/gateway/push/<caller>/<taskID>".
func GatewayPushKey(caller, taskID string) (string, error) {
	return callerTaskKey("gateway/push/", caller, taskID)
}

// ---- Shared limits (pkg/guard/redislimits): a2a/in-flight, a2a/rate, a2a/circuit ----
//
// These are Redis keys of their own, not Store keys: pkg/guard/redislimits
// keeps them at "<key prefix>limits:<key>" (redis_rate adds "rate:" before
// the rate key). Agent names ignore case, so the names are lower-cased.

// InFlightSlotsKey is the key of the in-flight slots of caller across its
// processes, a sorted set of slot ids scored by when their lease ends (Unix
// ms): "a2a/in-flight/<caller in lower case>".
func InFlightSlotsKey(caller string) (string, error) {
	if err := validateAgent("caller", caller); err != nil {
		return "", err
	}
	return rootA2A + "in-flight/" + strings.ToLower(caller), nil
}

// RateKey is the key of the rate limit of calls from caller to target (the
// GCRA's theoretical arrival time): "a2a/rate/<caller>/<target>", both in
// lower case.
func RateKey(caller, target string) (string, error) {
	if err := validateAgent("caller", caller); err != nil {
		return "", err
	}
	if err := validateAgent("target", target); err != nil {
		return "", err
	}
	return rootA2A + "rate/" + strings.ToLower(caller) + "/" + strings.ToLower(target), nil
}

// CircuitKey is the key of the shared circuit of target, a hash of its
// consecutive failures, when it opened and until when a probe runs:
// "a2a/circuit/<target in lower case>".
func CircuitKey(target string) (string, error) {
	if err := validateAgent("target", target); err != nil {
		return "", err
	}
	return rootA2A + "circuit/" + strings.ToLower(target), nil
}

// ---- A workflow run: workflow/<run>/… ----

// WorkflowRunKey is the key of run runID's state: "workflow/<runID>/run".
func WorkflowRunKey(runID string) (string, error) {
	if err := validatePart("run id", runID); err != nil {
		return "", err
	}
	return rootWorkflow + runID + "/run", nil
}

// WorkflowStepKey is the key of the state of step stepID of run runID:
// "workflow/<runID>/steps/<stepID>".
func WorkflowStepKey(runID, stepID string) (string, error) {
	if err := validatePart("run id", runID); err != nil {
		return "", err
	}
	if err := validatePart("step id", stepID); err != nil {
		return "", err
	}
	return rootWorkflow + runID + "/steps/" + stepID, nil
}

// WorkflowLeaseKey is the key of the engine instance that drives run runID:
// "workflow/<runID>/lease".
func WorkflowLeaseKey(runID string) (string, error) {
	if err := validatePart("run id", runID); err != nil {
		return "", err
	}
	return rootWorkflow + runID + "/lease", nil
}

// WorkflowStepSession is the session id the steps of run runID run in:
// "wf-<runID>" (their results, notification turns and call history).
func WorkflowStepSession(runID string) (string, error) {
	if err := validatePart("run id", runID); err != nil {
		return "", err
	}
	return validateSession(sessionWF + runID)
}

// ---- An orchestrated conversation: converse/<id>… ----

// ConversationKey is the key of conversation id's record: "converse/<id>".
func ConversationKey(id string) (string, error) {
	if err := validatePart("conversation id", id); err != nil {
		return "", err
	}
	return rootConverse + id, nil
}

// ConversationLeaseKey is the key of the process that drives conversation
// id: "converse/<id>/lease".
func ConversationLeaseKey(id string) (string, error) {
	key, err := ConversationKey(id)
	if err != nil {
		return "", err
	}
	return key + "/lease", nil
}

// ConversationSentKey is the marker set before the attempt-th send of turn
// turn of conversation id: "converse/<id>/sent/<turn>-<attempt>".
func ConversationSentKey(id string, turn, attempt int) (string, error) {
	key, err := ConversationKey(id)
	if err != nil {
		return "", err
	}
	if turn < 0 || attempt < 0 {
		return "", invalidKey("sent marker", fmt.Sprintf("%d-%d", turn, attempt), "has a negative turn or attempt")
	}
	return key + "/sent/" + strconv.Itoa(turn) + "-" + strconv.Itoa(attempt), nil
}

// rootLocal is the root of a local agent's conversation slots (all its
// conversations, every process).
const rootLocal = "converse-local/"

// LocalPromptKey is the lock of local agent's one draft request in flight,
// across every conversation and process: "converse-local/<agent in lower
// case>/prompt" (a memory.Lease; agent names ignore case).
func LocalPromptKey(agent string) (string, error) {
	if err := validateAgent("local agent", agent); err != nil {
		return "", err
	}
	return rootLocal + strings.ToLower(agent) + "/prompt", nil
}

// LocalSharedCallKey is slot slot of local agent's shared calls in flight
// (sends to remote agents on its behalf): "converse-local/<agent in lower
// case>/shared/<slot>" (a memory.Lease each; slot counts from 0).
func LocalSharedCallKey(agent string, slot int) (string, error) {
	if err := validateAgent("local agent", agent); err != nil {
		return "", err
	}
	if slot < 0 {
		return "", invalidKey("shared call slot", strconv.Itoa(slot), "is negative")
	}
	return rootLocal + strings.ToLower(agent) + "/shared/" + strconv.Itoa(slot), nil
}

// ConversationSession is the session id of conversation id's calls:
// "converse-<id>".
func ConversationSession(id string) (string, error) {
	if err := validatePart("conversation id", id); err != nil {
		return "", err
	}
	return validateSession(sessionCV + id)
}

// ConversationControlSession is the session id of conversation id's
// control log: "converse-<id>.control".
func ConversationControlSession(id string) (string, error) {
	s, err := ConversationSession(id)
	if err != nil {
		return "", err
	}
	return validateSession(s + controlSuffix)
}

// ---- AppendTurnOnce ids (unique within their session) ----

// NotifyOnceID is the once id of the notification turn of task taskID's
// outcome ("result" or "timeout"): "a2a-notify/<taskID>/<outcome>".
func NotifyOnceID(taskID, outcome string) (string, error) {
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	if err := validatePart("outcome", outcome); err != nil {
		return "", err
	}
	return onceNotify + taskID + "/" + outcome, nil
}

// NotifyTurnOnceID is the once id of the notification of how turn turn of
// task taskID ended ("result": a question or a final answer, the same id for
// both so only the first is ever notified; "timeout": the sweeper's TIMEOUT):
// NotifyOnceID for turn 0, "a2a-notify/<taskID>/turn-<turn>/<outcome>" for
// a later one.
func NotifyTurnOnceID(taskID string, turn int, outcome string) (string, error) {
	if turn < 0 {
		return "", invalidKey("turn", strconv.Itoa(turn), "is negative")
	}
	id, err := NotifyOnceID(taskID, outcome)
	if err != nil || turn == 0 {
		return id, err
	}
	return onceNotify + taskID + "/turn-" + strconv.Itoa(turn) + "/" + outcome, nil
}

// ChatAnswerOnceID is the once id of a chat's answer (or failure) to its
// inputs up to seq last: "chat/<last>/answer". Two runs over the same
// inputs can never both answer.
func ChatAnswerOnceID(last int64) (string, error) {
	if last < 0 {
		return "", invalidKey("chat answer", strconv.FormatInt(last, 10), "is a negative seq")
	}
	return onceChat + strconv.FormatInt(last, 10) + "/answer", nil
}

// ChatStepOnceID is the once id of turn i of step step of chat run runID
// over the inputs up to seq last (turn 0 the assistant's tool calls, then
// one per tool result): "chat/<last>/<runID>/<step>/<i>".
func ChatStepOnceID(last int64, runID string, step, i int) (string, error) {
	if last < 0 || step < 0 || i < 0 {
		return "", invalidKey("chat step", fmt.Sprintf("%d/%d/%d", last, step, i), "has a negative seq, step or turn")
	}
	if err := validatePart("chat run id", runID); err != nil {
		return "", err
	}
	return onceChat + strconv.FormatInt(last, 10) + "/" + runID + "/" + strconv.Itoa(step) + "/" + strconv.Itoa(i), nil
}

// PrimaryRequestOnceID is the once id of the user turn the Primary appends
// for task taskID: "primary/<taskID>".
func PrimaryRequestOnceID(taskID string) (string, error) {
	if err := validateTask(taskID); err != nil {
		return "", err
	}
	return oncePrimary + taskID, nil
}
