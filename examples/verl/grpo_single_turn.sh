#!/usr/bin/env bash
# GRPO on sqlgym rewards, single turn, with verl 0.9.0
# (verl-project/verl, tag v0.9.0; reward.custom_reward_function.* works from
# verl 0.7.1 on). The reward is sqlgym_verl.compute_score, a coroutine
# verl's reward loop awaits; the samples it scores together go to the
# server in one request. 32 questions x 16 answers per step.
#
#   sqlgym export --tasks shop --band band.jsonl --format verl --out band.parquet
#   sqlgym export --tasks shop --split holdout --format verl --out holdout.parquet   # see held-out validation
#   sqlgym serve --tasks shop --warm --eval-holdout &
#   bash examples/verl/grpo_single_turn.sh
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
SQLGYM_URL="${SQLGYM_URL:-http://127.0.0.1:8421}"
MODEL="${MODEL:-Qwen/Qwen2.5-Coder-1.5B-Instruct}"

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="${TRAIN:-band.parquet}" \
  data.val_files="${VAL:-holdout.parquet}" \
  data.train_batch_size=32 \
  data.max_prompt_length=4096 \
  data.max_response_length=1024 \
  actor_rollout_ref.model.path="$MODEL" \
  actor_rollout_ref.actor.optim.lr=1e-6 \
  actor_rollout_ref.actor.ppo_mini_batch_size=32 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4 \
  actor_rollout_ref.actor.use_kl_loss=false \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.n=16 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8 \
  reward.custom_reward_function.path="$REPO/integrations/python/sqlgym_verl.py" \
  reward.custom_reward_function.name=compute_score \
  +ray_kwargs.ray_init.runtime_env.env_vars.SQLGYM_URL="$SQLGYM_URL" \
  trainer.n_gpus_per_node="${GPUS:-8}" \
  trainer.nnodes=1 \
  trainer.total_epochs=4 \
  trainer.test_freq=10 \
  trainer.logger='["console"]' \
  trainer.project_name=sqlgym \
  trainer.experiment_name=grpo-single-turn \
  "$@"
