-- Launch sites: where the repository launches each Triton kernel, and what its code says about
-- every argument. `mine scan` records them; `mine check` reads its signatures from them first.

-- One row per launch of a kernel: `k[grid](...)`, `k.run(..., grid=...)`, through aliases,
-- attributes and imports from other files of the repository. A launch that can reach several
-- kernels of one name (matched by name alone) has a row for each.
-- launcher: qualname of the enclosing function ('' at module level); kind: subscript | run.
-- grid: the grid expression as written (a local `grid = ...` followed); grid_value: JSON
-- [g0, g1, g2] evaluated with nominal sizes, NULL when it needs values decided later (autotuned
-- META keys), which grid_env (JSON: names the grid reads -> nominal values) then supplies.
-- options: JSON num_warps, num_stages, ... given at the launch.
-- args: JSON array, one object per argument:
--   {param, keyword?, position, text, role, dtype?, value?, shape?, tensor?, nominal?, ratio?, sizes?, autocast?}
--   position: index among the positional arguments, -1 for keywords and for positionals after a
--   `*spread` of unknown length that linking could not count back from the kernel's end;
--   param: the kernel parameter it binds ('' when none does); role: tensor | descriptor | int |
--   float | bool | str | none | dtype | tuple | layout | unknown; dtype: Triton element type of a tensor,
--   a descriptor's tensor or a dtype ("fp16"); value: nominal value of a scalar, a string, a dtype
--   as "tl.float16", a Gluon layout as "$gluon:BlockedLayout([1], [32], [4], [0])", a tuple of integers as an array (`x.stride()`, `x.shape`: a kernel indexing
--   `x_stride[1]`), or a descriptor's block dimensions as written (`["1", "BLOCK_M", "head_dim"]`);
--   shape: nominal shape of a tensor (every dimension the code leaves open is 32), or the block a
--   descriptor (`TensorDescriptor.from_tensor(q, [1, BLOCK_M, D])`) loads (null for a block under
--   TMA's 16 bytes, a placeholder an autotune pre-hook replaces); tensor: the launcher variable a tensor
--   argument views, so arguments sharing a buffer can be told apart; nominal: true when the value
--   follows from those stand-in sizes; ratio: true when it is a ratio of sizes (`cdiv(K,
--   scales.shape[1])`), which alike stand-ins make 1 whatever it is (mine check then ignores it
--   for constexprs); sizes: true when such a ratio also shapes a tensor of the launch (`torch.empty(B,
--   K)` with K the ratio: mine check then keeps it, as the tensor is allocated with it); autocast: true when a tensor's dtype is the one `@custom_fwd(cast_inputs=...)`
--   casts floating tensors to (an integer tensor it does not cast: mine check lets the kernel's
--   integer use of the pointer decide).
-- complete: 0 when a *args / **kwargs of the launch could not be expanded.
-- launcher_source: the launcher's definition as written; launcher_standalone: a module holding
-- the launcher with its closure (the kernel, its helpers, imports), what `mine export
-- --with-launcher` writes; launcher_self_contained: 1 when that closure resolved every name.
-- NULL for launches at module level.
CREATE TABLE kernel_launches (
  id         INTEGER PRIMARY KEY,
  kernel_id  INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  repo_id    INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path       TEXT NOT NULL,
  line       INTEGER NOT NULL,
  launcher   TEXT NOT NULL,
  kind       TEXT NOT NULL,
  callee     TEXT NOT NULL,
  grid       TEXT,
  grid_value TEXT,
  grid_env   TEXT NOT NULL DEFAULT '{}',
  options    TEXT NOT NULL DEFAULT '{}',
  args       TEXT NOT NULL DEFAULT '[]',
  complete   INTEGER NOT NULL DEFAULT 1,
  launcher_source         TEXT,
  launcher_standalone     TEXT,
  launcher_self_contained INTEGER
);
CREATE INDEX kernel_launches_by_kernel ON kernel_launches(kernel_id);
CREATE INDEX kernel_launches_by_repo ON kernel_launches(repo_id);

-- Which launch a signature was read from (NULL: none), and how many launches the kernel has.
ALTER TABLE kernel_signatures ADD COLUMN launch_id INTEGER;
ALTER TABLE kernel_signatures ADD COLUMN launch_count INTEGER NOT NULL DEFAULT 0;
