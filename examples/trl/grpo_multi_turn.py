"""GRPO on sqlgym episodes with TRL's GRPOTrainer(environment_factory=...).

Pinned: trl==1.9.0 with transformers>=5.2.0 (environment_factory needs it).
SqlgymEnvironment works from trl 0.29.0 (environment_factory); from 1.8.0 on
TRL scores each rollout with its get_reward() itself, so no reward function
is passed (before 1.8, pass reward_funcs=[trl_environment_reward]).

Before launching (from the repository's root):

  sqlgym export --tasks band.jsonl --agent --protocol tools --format trl --out band.agent.jsonl
  sqlgym export --tasks shop --split holdout --agent --protocol tools --format trl --out holdout.agent.jsonl
  sqlgym serve --tasks shop --warm --eval-holdout --max-turns 4 &

The rows' prompt is the episode's opening messages, so reset() adds nothing
to it; each tool call is one partial step (no turn), and the turns (assistant
messages) are bounded here: max_tool_calling_iterations = max turns - 1.

Then: accelerate launch examples/trl/grpo_multi_turn.py
"""

import os
import sys

from datasets import load_dataset
from trl import GRPOConfig, GRPOTrainer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integrations", "python"))
from sqlgym_agent import SqlgymEnvironment  # noqa: E402

MODEL = os.environ.get("MODEL", "Qwen/Qwen3-1.7B")
MAX_TURNS = 4  # the server's --max-turns


def main():
    train = load_dataset("json", data_files="band.agent.jsonl", split="train")
    holdout = load_dataset("json", data_files="holdout.agent.jsonl", split="train")
    args = GRPOConfig(
        output_dir="grpo-sqlgym-agent",
        num_generations=8,
        per_device_train_batch_size=8,
        gradient_accumulation_steps=32,
        max_completion_length=2048,  # all turns and tool results together
        max_tool_calling_iterations=MAX_TURNS - 1,
        mask_truncated_completions=True,
        temperature=1.0,
        bf16=True,
        logging_steps=10,
        eval_strategy="steps",
        per_device_eval_batch_size=8,
        num_generations_eval=4,
        report_to="none",
    )
    trainer = GRPOTrainer(
        model=MODEL,
        args=args,
        train_dataset=train,
        eval_dataset=holdout,
        environment_factory=SqlgymEnvironment,  # its get_reward() is the reward (None: left out)
    )
    trainer.train()


if __name__ == "__main__":
    main()
