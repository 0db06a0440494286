// STYLE's plugin for OpenCode, written by `style install --harness opencode` and removed by
// `style uninstall --harness opencode`. Change STYLE's rules, not this file: install writes it
// again, and `style doctor` reports a copy that differs. How it works:
// docs/design/harnesses.md#opencode.
//
// OpenCode has no command hooks. This plugin hands each plugin hook below to the handlers STYLE
// installed for it (HANDLERS), one `sh -c` process each with the event as JSON on stdin, as
// every other client runs STYLE's hooks, and acts on the answer on stdout: `decision: deny`
// refuses (a throw), `args` rewrites the tool call in place, `context` reaches the model,
// `systemMessage` is shown to the person (a toast in OpenCode's TUI, and its log).
import { spawn } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync } from "node:fs"
import { dirname, join } from "node:path"

const HANDLERS = /* style:handlers */ {} /* style:end */

// Where a refusal is possible; elsewhere a failed handler is logged and the event goes on.
const GATES = new Set(["tool.execute.before", "chat.message"])
const FALLBACK_REASON = "STYLE refused this call."

// Per session: what the plugin learnt of it (model, agent, version, the current turn) and the
// session-start answer, whose context waits for the session's first message.
const sessions = new Map()

function session(id) {
  if (!sessions.has(id)) sessions.set(id, { started: null })
  return sessions.get(id)
}

function basePayload(event, sessionID, directory) {
  const known = session(sessionID)
  const payload = { hook_event_name: event, session_id: sessionID, cwd: directory }
  for (const key of ["model", "agent", "turn_id", "opencode_version"]) {
    if (known[key]) payload[key] = known[key]
  }
  return payload
}

// A tool hook's payload: the call's tool, arguments (`args`) and id.
function toolPayload(event, input, args, directory) {
  return {
    ...basePayload(event, input.sessionID, directory),
    tool_name: input.tool,
    tool_input: args,
    tool_use_id: input.callID,
  }
}

// One handler: `sh -c command` in the project, the payload on stdin, killed (its whole
// process group) after its timeout.
function runHandler(handler, payload, directory) {
  return new Promise((resolve) => {
    const started = Date.now()
    let child
    try {
      child = spawn("/bin/sh", ["-c", handler.command], {
        cwd: directory,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      })
    } catch (err) {
      resolve({ failed: `could not start it (${err.message})`, ms: 0 })
      return
    }
    let stdout = ""
    let stderr = ""
    let done = false
    const finish = (result) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve({ ...result, stdout, stderr, ms: Date.now() - started })
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL")
      } catch {}
      finish({ failed: `it did not answer within ${handler.timeout} s` })
    }, (handler.timeout || 4) * 1000)
    child.stdout.on("data", (data) => (stdout += data))
    child.stderr.on("data", (data) => (stderr += data))
    child.on("error", (err) => finish({ failed: `could not start it (${err.message})` }))
    child.on("close", (code, signal) => finish({ code, signal }))
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

// What one handler's result asks for: { refuse } or { context, args }, or why it failed.
function readResult(event, result) {
  if (result.failed) return { failed: result.failed }
  if (result.code === 2 && GATES.has(event)) {
    return { refuse: result.stderr.trim() || FALLBACK_REASON }
  }
  if (result.code !== 0) {
    return { failed: `it exited with ${result.signal || result.code}` }
  }
  const text = result.stdout.trim()
  if (!text) return {}
  let answer
  try {
    answer = JSON.parse(text)
  } catch {
    return { failed: "its answer is not JSON" }
  }
  if (answer === null || typeof answer !== "object") return { failed: "its answer is no object" }
  if (answer.decision === "deny") return { refuse: answer.reason || FALLBACK_REASON }
  const out = {}
  if (typeof answer.systemMessage === "string" && answer.systemMessage) {
    out.message = answer.systemMessage
  }
  if (typeof answer.context === "string" && answer.context) out.context = answer.context
  if (answer.args && typeof answer.args === "object") out.args = answer.args
  if (answer.result && typeof answer.result === "object") out.result = answer.result
  return out
}

// A handler that failed, as the hook itself records a call it could not check: one line in
// the nearest `.style/logs/errors.log` above the directory (`style doctor` counts them, `style
// audit coverage` explains a call by them). Written at once: OpenCode's own log is written in
// the background and a headless run may end before it is.
function recordFailure(directory, event, outcome, problem) {
  try {
    for (let dir = directory; ; dir = dirname(dir)) {
      const home = join(dir, ".style")
      if (existsSync(home)) {
        mkdirSync(join(home, "logs"), { recursive: true })
        const stamp = new Date().toISOString().replace(/\.\d+Z$/, "Z")
        const line = `${stamp} opencode ${event} ${outcome} ${problem.replace(/\s+/g, " ")}\n`
        appendFileSync(join(home, "logs", "errors.log"), line, { mode: 0o600 })
        return
      }
      if (dirname(dir) === dir) return
    }
  } catch {}
}

// Every handler installed for the event whose matcher takes the tool, in order: the first
// refusal ends it; contexts are joined, the last rewrite and the last result stand.
async function fire(event, payload, directory, log, show, tool) {
  const contexts = []
  let args = null
  let replaced = null // (not `result`: the loop's own `result` is a const, and Bun refuses the
  // whole plugin at load for an assignment to it)
  for (const group of HANDLERS[event] || []) {
    if (group.matcher && !(tool !== undefined && new RegExp(group.matcher).test(tool))) continue
    for (const handler of group.hooks || []) {
      const result = await runHandler(handler, payload, directory)
      const said = readResult(event, result)
      log("info", `style-hook ${event} answered in ${result.ms} ms`, {})
      if (result.stderr && result.stderr.trim()) log("warn", result.stderr.trim(), { event })
      if (said.failed) {
        const problem = `STYLE's ${event} handler failed: ${said.failed}`
        if (handler.failClosed && GATES.has(event)) {
          recordFailure(directory, event, "refused", problem)
          const why = "The call is refused because STYLE was installed with --fail-closed."
          return { refuse: `${problem}. ${why}` }
        }
        recordFailure(directory, event, "fail-open", problem)
        log("warn", `${problem}; the call goes on without STYLE`, { event })
        continue
      }
      if (said.message) show(said.message)
      if (said.refuse) return { refuse: said.refuse }
      if (said.context) contexts.push(said.context)
      if (said.args) args = said.args
      if (said.result) replaced = said.result
    }
  }
  return { context: contexts.join("\n\n"), args, result: replaced }
}

// The session-start event, once per session: `startup` for a session created while the plugin
// runs, `resume` for one first seen at a message.
function sessionStart(sessionID, source, directory, log, show) {
  const known = session(sessionID)
  if (!known.started) {
    const payload = { ...basePayload("session.created", sessionID, directory), source }
    known.started = fire("session.created", payload, directory, log, show)
  }
  return known.started
}

// A text part the model reads after the message's own parts.
function textPart(output, text, n) {
  const last = output.parts[output.parts.length - 1]
  const id = last && typeof last.id === "string" ? `${last.id}style${n}` : undefined
  return {
    ...(id ? { id } : {}),
    sessionID: output.message.sessionID,
    messageID: output.message.id,
    type: "text",
    text,
    synthetic: true,
  }
}

export const StylePlugin = async ({ client, directory }) => {
  const log = (level, message, extra) => {
    return client.app.log({ body: { service: "style", level, message, extra } }).catch(() => {})
  }
  // what the person is told: a toast in the TUI (`opencode run` shows none), and the log
  const show = (message) => {
    const toast = { title: "STYLE", message, variant: "warning" }
    const shown = client.tui.showToast({ body: toast }).catch(() => {})
    return Promise.all([log("warn", message, {}), shown])
  }
  return {
    event: async ({ event }) => {
      const props = event.properties || {}
      if (event.type === "session.created" && props.info && props.info.id) {
        const known = session(props.info.id)
        if (props.info.version) known.opencode_version = props.info.version
        sessionStart(props.info.id, "startup", directory, log, show)
      } else if (event.type === "session.idle" && props.sessionID) {
        const payload = basePayload("session.idle", props.sessionID, directory)
        await fire("session.idle", payload, directory, log, show)
      }
    },
    "chat.message": async (input, output) => {
      const sessionID = input.sessionID
      const known = session(sessionID)
      const message = output.message || {}
      if (message.model) known.model = `${message.model.providerID}/${message.model.modelID}`
      if (message.agent) known.agent = message.agent
      if (message.id) known.turn_id = message.id
      const start = await sessionStart(sessionID, "resume", directory, log, show)
      const texts = []
      if (start.context) texts.push(start.context)
      start.context = ""
      const prompt = (output.parts || [])
        .filter((part) => part.type === "text" && !part.synthetic)
        .map((part) => part.text)
        .join("\n")
      const payload = { ...basePayload("chat.message", sessionID, directory), prompt }
      const said = await fire("chat.message", payload, directory, log, show)
      if (said.refuse) {
        // the turn ends with OpenCode's own error: the person learns why here (before the
        // throw, while OpenCode still takes the log line)
        await show(`STYLE refused this prompt: ${said.refuse}`)
        throw new Error(said.refuse)
      }
      if (said.context) texts.push(said.context)
      texts.forEach((text, n) => output.parts.push(textPart(output, text, n)))
    },
    "tool.execute.before": async (input, output) => {
      const payload = toolPayload("tool.execute.before", input, output.args, directory)
      const said = await fire("tool.execute.before", payload, directory, log, show, input.tool)
      if (said.refuse) throw new Error(said.refuse)
      if (said.args) {
        // the tool runs with this very object: change it in place
        for (const key of Object.keys(output.args)) delete output.args[key]
        Object.assign(output.args, said.args)
      }
    },
    "tool.execute.after": async (input, output) => {
      const payload = {
        ...toolPayload("tool.execute.after", input, input.args, directory),
        tool_response: { title: output.title, output: output.output, metadata: output.metadata },
      }
      const said = await fire("tool.execute.after", payload, directory, log, show, input.tool)
      if (said.result) {
        // the result as STYLE gave it back (a secret replaced): what the model reads
        for (const key of ["title", "output", "metadata"]) {
          if (key in said.result) output[key] = said.result[key]
        }
      }
      if (said.context && typeof output.output === "string") {
        output.output = `${output.output}\n\n${said.context}`
      }
    },
  }
}
