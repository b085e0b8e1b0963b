"""Second tries after failures that the guesses may have caused: stand-in buffers that a kernel
wrote or faulted past grow (worker.grow_buffers), guessed block sizes of a compile that ran out of
time shrink (pool._second_try): what a retry may touch, by how much, and which row is reported."""
import os
import tempfile
import time
import unittest

import util  # noqa: F401 -- puts the harness on sys.path
import pool
import worker


def plan():
    return {"args": [("x", "tensor", ("float32", 1 << 20)),
                     ("n", "scalar", 32),
                     ("pair", "tuple", [("tensor", ("float16", 1 << 20)), ("scalar", 4)]),
                     ("idx", "tensor", ("int64", 1 << 20))]}


class GrowBuffers(unittest.TestCase):
    def test_named_buffers_grow_and_others_keep_their_size(self):
        p = plan()
        self.assertEqual(worker.grow_buffers(p, ["x", "pair[0]"], 16), {"x": 16, "pair[0]": 16})
        self.assertEqual(p["args"][0], ("x", "tensor", ("float32", 16 << 20)))
        self.assertEqual(p["args"][2][2][0], ("tensor", ("float16", 16 << 20)))
        self.assertEqual(p["args"][2][2][1], ("scalar", 4))
        self.assertEqual(p["args"][3], ("idx", "tensor", ("int64", 1 << 20)))
        self.assertEqual(p["args"][1], ("n", "scalar", 32))

    def test_all_buffers_grow_when_none_is_named(self):
        p = plan()
        self.assertEqual(sorted(worker.grow_buffers(p, None, 4)), ["idx", "pair[0]", "x"])
        self.assertEqual(p["args"][3][2][1], 4 << 20)

    def test_growth_stays_within_the_byte_budget(self):
        # 8 fp32 buffers of 2**22 elements (16 MiB each): 16x would add 1.9 GiB, so the factor
        # halves until the growth fits in MAX_GROWN_BYTES (1 GiB: 8x adds 896 MiB).
        p = {"args": [("b%d" % i, "tensor", ("float32", 1 << 22)) for i in range(8)]}
        grown = worker.grow_buffers(p, None, 16)
        self.assertEqual(set(grown.values()), {8})
        self.assertEqual(p["args"][0][2][1], 8 << 22)

    def test_nothing_grows_past_the_element_cap_or_when_nothing_is_named(self):
        p = {"args": [("big", "tensor", ("float32", worker.MAX_GROWN_ELEMS))]}
        self.assertEqual(worker.grow_buffers(p, None, 16), {})
        self.assertEqual(worker.grow_buffers(plan(), ["absent"], 16), {})


class RetryAfterFault(unittest.TestCase):
    TASK = {"spec": {"language": "triton"}, "stage": "run"}
    FAULT = {"status": "fail", "error_class": "illegal_address", "stage_reached": "run",
             "message": "CUDA error: an illegal memory access was encountered"}

    def test_only_run_time_faults_of_triton_kernels_are_retried_once(self):
        second = pool.Pool._second_try
        self.assertEqual(second(self.TASK, self.FAULT), {"grow": pool.GROW_ON_FAULT})
        self.assertIsNone(second(dict(self.TASK, grow=16), self.FAULT))
        self.assertIsNone(second({"spec": {"language": "cuda"}, "stage": "run"}, self.FAULT))
        self.assertIsNone(second(self.TASK, dict(self.FAULT, error_class="type_error")))
        self.assertIsNone(second(self.TASK, dict(self.FAULT, stage_reached="compile")))

    def test_compile_timeouts_with_guessed_blocks_retry_with_smaller_ones(self):
        timeout = {"status": "fail", "error_class": "timeout", "stage_reached": "compile", "message": "no result"}
        guessed = {"spec": {"language": "triton", "constexprs": {"BLOCK_M": 128, "CAUSAL": False},
                            "guessed": ["BLOCK_M", "CAUSAL"]}, "stage": "run"}
        self.assertEqual(pool.Pool._second_try(guessed, timeout), {"shrink": pool.SHRINK_ON_TIMEOUT})
        # Blocks the launch chose are the repository's: a slow compile of them is the kernel's.
        launched = {"spec": dict(guessed["spec"], guessed=["CAUSAL"]), "stage": "run"}
        self.assertIsNone(pool.Pool._second_try(launched, timeout))
        self.assertIsNone(pool.Pool._second_try(guessed, dict(timeout, stage_reached="run")))
        # A killed worker's row does not know its stage; the scratch folder's marker does.
        with tempfile.TemporaryDirectory() as scratch:
            with open(os.path.join(scratch, ".stage"), "w") as f:
                f.write("compile")
            killed = dict(guessed, scratch=scratch)
            self.assertEqual(pool.Pool._second_try(killed, dict(timeout, stage_reached="unknown")),
                             {"shrink": pool.SHRINK_ON_TIMEOUT})
        self.assertIsNone(pool.Pool._second_try(dict(guessed, shrink=2), timeout))

    def test_compile_timeouts_of_an_autotuned_kernel_retry_its_smallest_config(self):
        timeout = {"status": "fail", "error_class": "timeout", "stage_reached": "compile", "message": "no result"}
        configs = [{"num_stages": 1, "num_warps": 4, "constexprs": {"BLOCK_M": 256, "BLOCK_N": 256}},
                   {"num_stages": 3, "num_warps": 8, "constexprs": {"BLOCK_M": 64, "BLOCK_N": 128}},
                   {"num_stages": 2, "num_warps": 4, "constexprs": {"BLOCK_M": 64, "BLOCK_N": 128}}]
        tuned = {"spec": {"language": "triton", "constexprs": {"BLOCK_M": 256, "BLOCK_N": 256},
                          "guessed": [], "autotune": configs}, "stage": "run"}
        self.assertEqual(pool.Pool._second_try(tuned, timeout), {"config": 2})
        self.assertIsNone(pool.Pool._second_try(dict(tuned, config=2), timeout))  # once
        self.assertIsNone(pool.Pool._second_try(tuned, dict(timeout, error_class="type_error")))
        # The first config is already the smallest: nothing else to try.
        first_small = {"spec": dict(tuned["spec"], autotune=[configs[2], configs[0]]), "stage": "run"}
        self.assertIsNone(pool.Pool._second_try(first_small, timeout))

    def test_an_autotune_config_replaces_the_first_ones_values(self):
        spec = {"options": {"num_warps": 4, "num_stages": 1},
                "autotune": [{"num_warps": 4, "num_stages": 1, "constexprs": {"BLOCK_M": 256}},
                             {"num_warps": 8, "num_stages": 2, "constexprs": {"BLOCK_M": 64, "OTHER": 3}}]}
        plan, row = {"constexprs": {"BLOCK_M": 256, "CAUSAL": True}}, {}
        out = worker.use_autotune_config(spec, plan, 1, row)
        self.assertEqual(plan["constexprs"], {"BLOCK_M": 64, "CAUSAL": True})  # only the kernel's own
        self.assertEqual(out["options"], {"num_warps": 8, "num_stages": 2})
        self.assertEqual(spec["options"], {"num_warps": 4, "num_stages": 1})  # the task's spec as it was
        self.assertEqual(row["config"], 1)
        self.assertIs(worker.use_autotune_config(spec, plan, 5, {}), spec)

    def test_configs_built_by_the_module_replace_guesses_only(self):
        # `@triton.autotune(configs=get_configs())`, a loop mine cannot read: the import built
        # them, and the first one's values replace what mine guessed, not what the launch gave.
        class Config:
            def __init__(self, kwargs, num_warps=4, num_stages=2):
                self.kwargs, self.num_warps, self.num_stages = kwargs, num_warps, num_stages

        class JIT:
            pass

        class Autotuner:
            def __init__(self, configs):
                self.configs, self.fn = configs, JIT()

        entry = Autotuner([Config({"BLOCK_Q": 64, "BLOCK_K": 64, "dtype": object()}, 8, 3), Config({"BLOCK_Q": 128})])
        configs = worker.imported_autotune_configs(entry)
        self.assertEqual(configs[0], {"constexprs": {"BLOCK_Q": 64, "BLOCK_K": 64}, "num_warps": 8, "num_stages": 3})
        self.assertEqual(len(configs), 2)
        self.assertIsNone(worker.imported_autotune_configs(JIT()))

        spec = {"options": {"num_warps": 4}}
        plan = {"constexprs": {"BLOCK_Q": 128, "BLOCK_K": 32, "n": 7}, "guessed": ["BLOCK_Q", "n"]}
        row = {}
        out = worker.use_imported_config(spec, plan, configs, row)
        self.assertEqual(plan["constexprs"], {"BLOCK_Q": 64, "BLOCK_K": 32, "n": 7})  # BLOCK_K came from the launch
        self.assertEqual(plan["guessed"], ["n"])
        self.assertEqual(out["options"], {"num_warps": 4, "num_stages": 3})  # the entry's own warps stay
        self.assertEqual(row["imported_config"]["constexprs"], {"BLOCK_Q": 64})
        # Configs mine read itself (the entry's `autotune`) are used as they are.
        read = {"autotune": [{"constexprs": {"BLOCK_Q": 16}}]}
        plan = {"constexprs": {"BLOCK_Q": 128}, "guessed": ["BLOCK_Q"]}
        self.assertIs(worker.use_imported_config(read, plan, configs, {}), read)
        self.assertEqual(plan["constexprs"], {"BLOCK_Q": 128})

    def test_a_module_killed_after_its_eager_run_ran_eagerly(self):
        # inductor_stage marks "run" once the eager forward passed; an Inductor compile past the
        # timeout then kills the worker with the row's details.
        timeout = {"status": "fail", "error_class": "timeout", "stage_reached": "unknown", "message": "no result"}
        with tempfile.TemporaryDirectory() as scratch:
            module = {"spec": {"language": "torch_module"}, "stage": "inductor", "scratch": scratch}
            for stage, eager in (("run", True), ("load", None)):
                with open(os.path.join(scratch, ".stage"), "w") as f:
                    f.write(stage)
                row = dict(timeout)
                p = pool.Pool.__new__(pool.Pool)
                p.devices, p.on_row = None, None
                p._emit(module, row, {})
                self.assertEqual(row["stage_reached"], stage)
                self.assertEqual((row.get("inductor") or {}).get("eager_ok"), eager)
                self.assertEqual(row.get("checker"), "inductor" if eager else None)
            # A Triton kernel's "run" is its launch: no inductor record.
            with open(os.path.join(scratch, ".stage"), "w") as f:
                f.write("run")
            row = dict(timeout)
            p._emit(dict(module, spec={"language": "triton"}), row, {})
            self.assertNotIn("inductor", row)

    def test_a_passing_retry_is_reported_with_the_first_outcome(self):
        row = pool.Pool._after_retry(dict(self.FAULT), {"status": "ok", "grown": {"x": 16}})
        self.assertEqual(row["status"], "ok")
        self.assertEqual(row["first_try"]["error_class"], "illegal_address")

    def test_a_failing_retry_leaves_the_first_verdict(self):
        row = pool.Pool._after_retry(dict(self.FAULT), {"status": "fail", "error_class": "timeout", "message": "m"})
        self.assertEqual(row["error_class"], "illegal_address")
        self.assertEqual(row["grown_retry"]["error_class"], "timeout")


class FakeWorker:
    """Stands in for a worker process: the pool only reads these attributes of one."""
    serial = 0

    def __init__(self):
        FakeWorker.serial += 1
        self.versions = {}
        self.proc = type("Proc", (), {"pid": 1000 + FakeWorker.serial})()


class SecondTryScheduling(unittest.TestCase):
    """The pool's order: every first try, then the second tries, at most SECOND_TRY_JOBS at a
    time, one row per kernel. Real children and a GPU are in test_real_triton; here the pool's own
    bookkeeping runs with its worker calls replaced."""

    def run_pool(self, faulting, jobs=8, n=20):
        import threading
        rows, order, running, peak = [], [], [0], [0]
        lock = threading.Lock()
        p = pool.Pool.__new__(pool.Pool)
        p.jobs, p.devices, p.max_tasks = jobs, None, 500
        p.lock, p.spawn_lock = threading.Lock(), threading.Lock()
        p.on_row, p.live_pids = rows.append, set()
        p._spawn = lambda slot: FakeWorker()
        p._retire = lambda w: None
        p.sweep = lambda: None

        def one(w, task):
            with lock:
                order.append((task["spec"]["id"], task.get("grow")))
                running[0] += 1
                peak[0] = max(peak[0], running[0]) if task.get("grow") else peak[0]
            time.sleep(0.01)
            with lock:
                running[0] -= 1
            kid = task["spec"]["id"]
            if kid in faulting and not task.get("grow"):
                return dict(FAULT_ROW, id=kid), False
            return {"id": kid, "status": "ok", "grown": {"x": task["grow"]} if task.get("grow") else None}, True
        p._one = one
        tasks = [{"spec": {"id": i, "language": "triton"}, "stage": "run", "scratch": "/nonexistent"}
                 for i in range(n)]
        p.run(tasks)
        return rows, order, peak[0]

    def test_faulting_kernels_retry_after_all_first_tries_four_at_a_time(self):
        faulting = set(range(0, 20, 2))
        rows, order, peak = self.run_pool(faulting)
        self.assertEqual(sorted(r["id"] for r in rows), list(range(20)))  # one row each
        firsts = [i for i, (kid, grow) in enumerate(order) if grow is None]
        seconds = [i for i, (kid, grow) in enumerate(order) if grow]
        self.assertEqual(len(seconds), len(faulting))
        self.assertLess(max(firsts), min(seconds))
        self.assertLessEqual(peak, pool.SECOND_TRY_JOBS)
        self.assertLess(peak, 8)  # the first tries' eight at a time would have overlapped
        for r in rows:
            if r["id"] in faulting:
                self.assertEqual(r["status"], "ok")
                self.assertEqual(r["first_try"]["error_class"], "illegal_address")
                self.assertEqual(r["grown"], {"x": pool.GROW_ON_FAULT})
            else:
                self.assertNotIn("first_try", r)


FAULT_ROW = {"status": "fail", "error_class": "illegal_address", "stage_reached": "run",
             "message": "CUDA error: an illegal memory access was encountered"}


if __name__ == "__main__":
    unittest.main()
