-- Run by tests/e2e/test_neovim.py inside `nvim --headless --clean`, with the context file
-- to check as the current buffer. Attaches pi-lsp as a user's config would, waits for its
-- diagnostics, asks for a hover (raw, and through `vim.lsp.buf.hover()` as `K` would show
-- it), stops the server, writes what Neovim saw as JSON to $PILSP_E2E_OUT and quits.
-- Never waits without a timeout: a failure is written to the JSON, never a hang.
-- Works with Neovim 0.7 (start_client + buf_attach_client) and later (vim.lsp.start).

local config = vim.fn.json_decode(vim.fn.readfile(os.getenv("PILSP_E2E_CONFIG")))
local out_path = os.getenv("PILSP_E2E_OUT")
local timeout = config.timeout_ms
vim.lsp.set_log_level("debug") -- the whole exchange, for the test's failure report

local seen = {
  nvim_version = tostring(vim.version().major) .. "." .. vim.version().minor,
  log_path = vim.lsp.get_log_path(),
  errors = {}, -- problems on the client side: Lua errors, timeouts, on_error
  notifications = {}, -- vim.notify at WARN or above (e.g. "Client 1 quit with exit code 1")
  messages = {}, -- window/logMessage and window/showMessage from the server
}

local function fail(...)
  table.insert(seen.errors, table.concat(vim.tbl_map(tostring, { ... }), " "))
end

local notify = vim.notify
vim.notify = function(msg, level, opts)
  if (level or vim.log.levels.INFO) >= vim.log.levels.WARN then
    table.insert(seen.notifications, { level = level, message = tostring(msg) })
  end
  return notify(msg, level, opts)
end

local function message_handler(method)
  local default = vim.lsp.handlers[method]
  return function(err, result, ctx, cfg)
    table.insert(seen.messages, { method = method, type = result.type, message = result.message })
    return default(err, result, ctx, cfg)
  end
end

local function severity_name(severity)
  for name, value in pairs(vim.diagnostic.severity) do
    if value == severity and #name > 1 then
      return name
    end
  end
  return tostring(severity)
end

local function described(diagnostic)
  local lsp = (diagnostic.user_data or {}).lsp or {}
  local related = {}
  local infos = type(lsp.relatedInformation) == "table" and lsp.relatedInformation or {}
  for _, info in ipairs(infos) do
    table.insert(related, { uri = info.location.uri, line = info.location.range.start.line })
  end
  return {
    lnum = diagnostic.lnum,
    col = diagnostic.col,
    severity = severity_name(diagnostic.severity),
    source = diagnostic.source,
    code = diagnostic.code or lsp.code,
    message = diagnostic.message,
    related = related,
  }
end

local function floating_windows()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= "" then
      table.insert(found, win)
    end
  end
  return found
end

local function run()
  local bufnr = vim.api.nvim_get_current_buf()
  seen.buffer = vim.api.nvim_buf_get_name(bufnr)
  local initialized, exit = false, nil
  local client_config = {
    name = "pi-lsp",
    cmd = config.cmd,
    root_dir = config.root_dir,
    init_options = config.init_options,
    handlers = {
      ["window/logMessage"] = message_handler("window/logMessage"),
      ["window/showMessage"] = message_handler("window/showMessage"),
    },
    on_init = function()
      initialized = true
    end,
    on_error = function(code, err)
      fail("on_error", vim.lsp.client_errors[code] or code, vim.inspect(err))
    end,
    on_exit = function(code, signal)
      exit = { code = code, signal = signal }
      seen.exit = exit
    end,
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(client_config, { bufnr = bufnr })
  else
    client_id = vim.lsp.start_client(client_config)
    if client_id then
      vim.lsp.buf_attach_client(bufnr, client_id)
    end
  end
  if not client_id then
    return fail("the client did not start")
  end
  -- true once `ready()` holds; on a timeout or a server exit, a failure and false
  local function wait_for(what, ready)
    vim.wait(timeout, function()
      return ready() or exit ~= nil
    end, 10)
    if ready() then
      return true
    end
    if exit then
      fail("the server exited with", vim.inspect(exit), "before", what)
    else
      fail("no", what, "within", timeout, "ms")
    end
    return false
  end

  if not wait_for("initialize response", function()
    return initialized
  end) then
    return
  end
  -- the first diagnostics come after the server's initial workspace lint
  local ok = wait_for("diagnostics", function()
    return #vim.diagnostic.get(bufnr) > 0
  end)
  seen.diagnostics = vim.tbl_map(described, vim.diagnostic.get(bufnr))
  if not ok then
    return
  end

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = 0, character = 0 },
  }
  local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, timeout)
  local response = (responses or {})[client_id]
  if not response then
    return fail("no hover response:", err or "no result from pi-lsp")
  end
  if response.err or response.error then
    return fail("hover error:", vim.inspect(response.err or response.error))
  end
  seen.hover = response.result and response.result.contents

  -- what `K` shows: the default handler's floating window
  vim.lsp.buf.hover()
  if not wait_for("hover window", function()
    return #floating_windows() > 0
  end) then
    return
  end
  local window = floating_windows()[1]
  seen.hover_window = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(window), 0, -1, false)

  vim.lsp.stop_client(client_id)
  vim.wait(timeout, function()
    return exit ~= nil
  end, 10)
  if not exit then
    fail("the server did not exit within", timeout, "ms of the shutdown")
  end
end

local ok, problem = xpcall(run, debug.traceback)
if not ok then
  fail("lua error:", problem)
end
vim.fn.writefile({ vim.fn.json_encode(seen) }, out_path)
vim.cmd(#seen.errors == 0 and "qall!" or "cquit 1")
