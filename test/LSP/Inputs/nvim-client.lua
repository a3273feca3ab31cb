-- Neovim (headless) as the LSP client of cuda-l1-lsp: diagnostics arrive
-- for an opened file, a code action's edit changes the buffer, and editing
-- the buffer updates the diagnostics. Uses only Neovim's own LSP client
-- (vim.lsp, vim.diagnostic), as a user's configuration would.
-- Environment: CUDAL1_LSP (the server), TEST_FILE (a .cu file).
local server = os.getenv('CUDAL1_LSP')
local file = os.getenv('TEST_FILE')
local out = io.stdout

local function say(...)
  out:write(table.concat({...}, ' ') .. '\n')
  out:flush()
end

local function fail(msg)
  say('FAIL: ' .. msg)
  vim.cmd('cquit 1')
end

vim.cmd('edit ' .. file)
local buf = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'cuda-l1',
  cmd = { server, '--rules=-*,algebraic-float-literal,memory-restrict', '--debounce-ms=100' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
})
if not client_id then fail('the server did not start') end
vim.lsp.buf_attach_client(buf, client_id)

local function diagnostics()
  local ds = vim.diagnostic.get(buf)
  table.sort(ds, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  local parts = {}
  for _, d in ipairs(ds) do
    local code = d.user_data and d.user_data.lsp and d.user_data.lsp.code or d.code
    table.insert(parts, string.format('%s@%d:%d(%s)', tostring(code), d.lnum, d.col, d.source or ''))
  end
  return table.concat(parts, ' ')
end

local function wait_diagnostics(pred, what)
  local ok = vim.wait(60000, function() return pred(diagnostics()) end, 50)
  if not ok then fail('timed out waiting for ' .. what .. '; have: ' .. diagnostics()) end
  return diagnostics()
end

-- 1. Diagnostics arrive for the opened file.
say('opened:', wait_diagnostics(function(s) return s:find('algebraic%-float%-literal') end,
                                 'the first diagnostics'))

-- 2. A code action's edit changes the buffer.
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 2, character = 19 }, ['end'] = { line = 2, character = 19 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 2) },
}
local results = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 60000)
local action
for _, r in pairs(results or {}) do
  for _, a in ipairs(r.result or {}) do
    say('action:', a.title, a.kind, a.edit and 'edit' or 'no edit')
    if not action and a.edit and a.title:find('0.100000001f', 1, true) then action = a end
  end
end
if not action then fail('no quick fix offered') end
local client = vim.lsp.get_client_by_id(client_id)
vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')
say('line 3 after the fix:', vim.api.nvim_buf_get_lines(buf, 2, 3, false)[1])
say('fixed:', wait_diagnostics(function(s) return not s:find('algebraic%-float%-literal@2') end,
                               'the diagnostics after the fix'))

-- 3. Editing the buffer updates the diagnostics (incremental didChange).
vim.api.nvim_buf_set_lines(buf, 3, 3, false, { '  out[1] = in[1] * 0.35;' })
say('edited:', wait_diagnostics(function(s) return s:find('algebraic%-float%-literal@3') end,
                                'the diagnostics after the edit'))
vim.api.nvim_buf_set_text(buf, 3, 19, 3, 23, { '0.35f' })
say('line 4:', vim.api.nvim_buf_get_lines(buf, 3, 4, false)[1])
say('edited again:', wait_diagnostics(function(s) return not s:find('algebraic%-float%-literal@3') end,
                                      'the diagnostics after the second edit'))

vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
say('done')
vim.cmd('qa!')
