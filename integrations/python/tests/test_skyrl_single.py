"""SkyRL single turn: the same environment with generator.max_turns=1.

SkyRL's generator passes max_turns in the env's extras
(skyrl_gym_generator.py:335 at skyrl-v0.3.0, :333 on main a9564572) and
stops after that many steps, then calls close (:520-522): so a single-turn
run is one step. Helpers and citations are test_skyrl.py's.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from serve_fixture import Serve  # noqa: E402
from test_skyrl import TASKS, make_env, rollout, skyrl_row  # noqa: E402


class SkyRLSingleTurnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.serve = Serve(TASKS)

    @classmethod
    def tearDownClass(cls):
        cls.serve.stop()

    def test_one_step(self):
        for reply, reward, done in (("<solution>SELECT COUNT(*) FROM orders</solution>", 1.0, True),
                                    ("<solution>SELECT 1</solution>", 0.1, True),
                                    # No submission in the one turn: the step's 0.0, and close judges it no_query.
                                    ("<sql>SELECT COUNT(*) FROM orders</sql>", 0.0, False)):
            env, prompt = make_env(self.serve.url, skyrl_row("orders"), max_turns=1)
            _, steps, metrics = rollout(env, prompt, [reply])
            self.assertEqual((steps[0]["reward"], steps[0]["done"]), (reward, done))
            self.assertEqual(metrics["sqlgym_correct"], 1.0 if reward == 1.0 else 0.0)
            if not done:
                self.assertEqual(env.result["outcome"], "no_query")


if __name__ == "__main__":
    unittest.main()
