"""The recipe check: every flag and config key of the launch recipes and
docs exists in the trainer version they are pinned to.

Each trainer_keys_<trainer>.py beside this file defines TRAINER, VERSION,
KEYS (key -> "repo@version path:line" where it was read), FILES
(repo-relative examples and docs) and extract(text) -> set of keys used.
This test runs extract on every FILES entry and fails listing each key not
in KEYS, and each FILES entry that is missing. Updating a trainer version
means re-reading its source and updating its KEYS.
"""

import glob
import importlib.util
import os
import re
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CITATION = re.compile(r"^[\w.-]+/[\w.-]+@\S+ \S+:\d+")


def trainer_modules():
    mods = []
    for path in sorted(glob.glob(os.path.join(HERE, "trainer_keys_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mods.append(mod)
    return mods


class RecipeTest(unittest.TestCase):
    def test_modules_are_complete(self):
        mods = trainer_modules()
        self.assertTrue(mods, "no trainer_keys_*.py beside test_recipes.py")
        for mod in mods:
            with self.subTest(trainer=getattr(mod, "TRAINER", mod.__name__)):
                for attr in ("TRAINER", "VERSION", "KEYS", "FILES", "extract"):
                    self.assertTrue(hasattr(mod, attr), "%s has no %s" % (mod.__name__, attr))
                self.assertTrue(mod.KEYS, "%s: KEYS is empty" % mod.__name__)
                bad = [k for k, c in mod.KEYS.items() if not CITATION.match(c)]
                self.assertEqual(bad, [], "%s: keys without a 'repo@version path:line' citation" % mod.__name__)

    def test_every_key_in_the_files_exists(self):
        failures = []
        for mod in trainer_modules():
            for rel in mod.FILES:
                path = os.path.join(REPO, rel)
                if not os.path.exists(path):
                    failures.append("%s %s: %s is missing" % (mod.TRAINER, mod.VERSION, rel))
                    continue
                with open(path, encoding="utf-8") as f:
                    used = mod.extract(f.read())
                if rel.startswith("examples/") and not used:
                    # A recipe in which the check finds nothing is not checked at all.
                    failures.append("%s %s: %s: no key found (is it a launch recipe for %s?)" % (mod.TRAINER, mod.VERSION, rel, mod.TRAINER))
                for key in sorted(used - set(mod.KEYS)):
                    failures.append("%s %s: %s: %s is not a key of that version" % (mod.TRAINER, mod.VERSION, rel, key))
        self.assertEqual(failures, [], "\n" + "\n".join(failures))

    def test_the_check_can_fail(self):
        """Each extract finds a made-up key, which KEYS then lacks."""
        samples = {
            "openrlhf": "```sh\npython3 -m openrlhf.cli.train_ppo_ray \\\n  --reward.remote_url x --no.such_flag 1\n```\n",
            "trl": "```python\nargs = GRPOConfig(output_dir='o', no_such_key=1)\n```\n",
            "slime": "## slime\n\nRun with `--rm-url URL --no-such-flag`.\n",
            "prime-rl": "```toml\n[[orchestrator.train.source]]\nname = \"x\"\nno_such_key = 1\n```\n",
        }
        for mod in trainer_modules():
            if mod.TRAINER not in samples:
                continue
            with self.subTest(trainer=mod.TRAINER):
                used = mod.extract(samples[mod.TRAINER])
                self.assertTrue(used - set(mod.KEYS), "a made-up key passed the %s check: %s" % (mod.TRAINER, used))
                self.assertTrue(used & set(mod.KEYS), "the %s check found no real key in %s" % (mod.TRAINER, used))

    def test_openrlhf_extract_reads_arrays_and_skips_other_commands(self):
        mods = {m.TRAINER: m for m in trainer_modules()}
        if "openrlhf" not in mods:
            self.skipTest("no trainer_keys_openrlhf.py")
        text = ("sqlgym serve --tasks shop --warm &\n"
                "ARGS=(\n  --data.label_key label  # the export's label column\n  --bogus.flag\n)\n"
                "ray job submit --address=x -- python3 -m openrlhf.cli.train_ppo_ray \\\n"
                "  --reward.remote_url=http://h/get_reward ${ARGS[@]}\n")
        self.assertEqual(mods["openrlhf"].extract(text), {"--reward.remote_url", "--data.label_key", "--bogus.flag"})

    def test_openrlhf_extract_reads_prose(self):
        # A flag OpenRLHF removed, named in a sentence or a docstring, is caught;
        # sqlgym's own hyphenated flags in the same prose are not OpenRLHF's.
        mods = {m.TRAINER: m for m in trainer_modules()}
        if "openrlhf" not in mods:
            self.skipTest("no trainer_keys_openrlhf.py")
        text = ("One setting (`SQLGYM_URL`, OpenRLHF's\n`--remote_rm_url`) serves the cluster; run\n"
                "`sqlgym serve --max-turns 4 --eval-holdout` and pass --reward.remote_url.\n")
        used = mods["openrlhf"].extract(text)
        self.assertEqual(used, {"--remote_rm_url", "--reward.remote_url"})
        self.assertEqual(used - set(mods["openrlhf"].KEYS), {"--remote_rm_url"})


if __name__ == "__main__":
    unittest.main()
