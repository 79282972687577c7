"""GRPO with sqlgym rewards on TRL's GRPOTrainer, single-turn.

Pinned: trl==1.9.0 (transformers>=4.56.2). SqlgymReward works from trl 0.18.0
on (completion_ids reach reward functions); before 1.8 a completion whose
every reward is None counts as 0 in its group's mean, so keep
mask_truncated_completions=True there.

Before launching (from the repository's root):

  sqlgym eval --tasks shop --split train --policy openai --model M --k 16 --out runs/base-k16
  sqlgym band runs/base-k16 --out band.jsonl
  sqlgym export --tasks shop --band band.jsonl --format trl --out band.trl.jsonl
  sqlgym export --tasks shop --split holdout --format trl --out holdout.trl.jsonl
  sqlgym serve --tasks shop --warm --eval-holdout &      # rewards on 127.0.0.1:8421

Then: accelerate launch examples/trl/grpo_single_turn.py
"""

import os
import sys

from datasets import load_dataset
from transformers import AutoTokenizer
from trl import GRPOConfig, GRPOTrainer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integrations", "python"))
from sqlgym_reward import SqlgymReward  # noqa: E402

MODEL = os.environ.get("MODEL", "Qwen/Qwen2.5-Coder-1.5B-Instruct")
MAX_COMPLETION = 512


def main():
    tok = AutoTokenizer.from_pretrained(MODEL)
    train = load_dataset("json", data_files="band.trl.jsonl", split="train")
    # Rows say split "holdout": SqlgymReward sends them as evaluation requests.
    holdout = load_dataset("json", data_files="holdout.trl.jsonl", split="train")
    args = GRPOConfig(
        output_dir="grpo-sqlgym",
        num_generations=16,  # 16 answers per question
        per_device_train_batch_size=16,  # x 32 accumulation steps = 512 completions,
        gradient_accumulation_steps=32,  # 32 questions per update on one process
        max_completion_length=MAX_COMPLETION,
        mask_truncated_completions=True,  # cut-off replies leave the loss and get reward None
        temperature=1.0,
        bf16=True,
        logging_steps=10,
        eval_strategy="steps",  # every logging_steps, on the held-out file
        per_device_eval_batch_size=16,
        num_generations_eval=4,
        report_to="none",
    )
    trainer = GRPOTrainer(
        model=MODEL,
        args=args,
        train_dataset=train,
        eval_dataset=holdout,
        # A picklable instance (AsyncGRPOTrainer takes it too); None for a truncated reply.
        reward_funcs=[SqlgymReward(eos_token_id=tok.eos_token_id, max_completion_length=MAX_COMPLETION)],
    )
    trainer.train()


if __name__ == "__main__":
    main()
