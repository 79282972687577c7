"""The recipe check for the trainer_keys_*.py modules of this folder: every
config key the examples and docs pass to a trainer is one of the keys that
trainer's pinned version has, as recorded (with its source line) in the
module. A local runner until the shared test_recipes.py covers them.
"""

import glob
import importlib
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)

CITATION = re.compile(r"^[\w.-]+/[\w.-]+@\S+ \S+:\d+")


def modules():
    for path in sorted(glob.glob(os.path.join(HERE, "trainer_keys_*.py"))):
        yield importlib.import_module(os.path.basename(path)[:-3])


class TrainerKeysTest(unittest.TestCase):
    def test_every_key_is_the_pinned_versions(self):
        found = 0
        for mod in modules():
            for k, cite in mod.KEYS.items():
                self.assertRegex(cite, CITATION, "%s: %s" % (mod.TRAINER, k))
            for rel in mod.FILES:
                path = os.path.join(REPO, rel)
                self.assertTrue(os.path.exists(path), "%s lists %s, which does not exist" % (mod.TRAINER, rel))
                with open(path) as f:
                    keys = mod.extract(f.read())
                unknown = sorted(keys - set(mod.KEYS))
                self.assertEqual(unknown, [], "%s: keys not in %s %s: %s" % (rel, mod.TRAINER, mod.VERSION, unknown))
                if rel.startswith("examples/"):
                    self.assertTrue(keys, "%s: no %s command found" % (rel, mod.TRAINER))
                found += len(keys)
        self.assertGreater(found, 0)

    def test_extract_reads_only_the_trainers_commands(self):
        import trainer_keys_skyrl as sky
        import trainer_keys_verl as verl

        text = "\n".join([
            "sqlgym export --tasks shop --format verl --out a.parquet",
            "python3 -m verl.trainer.main_ppo \\",
            "  data.train_files=a.parquet \\",
            "  +ray_kwargs.ray_init.runtime_env.env_vars.X=1 \\",
            "  trainer.logger='[\"console\"]'",
            "other.command key.not.read=1",
        ])
        self.assertEqual(verl.extract(text), {"data.train_files", "+ray_kwargs.ray_init.runtime_env.env_vars.X", "trainer.logger"})
        self.assertEqual(sky.extract(text), set())
        self.assertEqual(sky.extract("python3 examples/skyrl/main_sqlgym.py generator.max_turns=4 trainer.nope=1"),
                         {"generator.max_turns", "trainer.nope"})
        # A key the pinned version lacks is caught.
        self.assertNotIn("custom_reward_function.path", verl.KEYS)


if __name__ == "__main__":
    unittest.main()
