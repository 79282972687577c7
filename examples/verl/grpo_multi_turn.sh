#!/usr/bin/env bash
# GRPO on sqlgym episodes, multi turn, with verl 0.9.0 (verl-project/verl,
# tag v0.9.0). Rows name the agent loop sqlgym_agent (sqlgym_verl.py's
# SqlgymAgentLoop, declared in sqlgym_agent_loop.yaml): it opens one episode
# per trajectory on `sqlgym serve`, generates each turn with verl's rollout
# server, and sets the trajectory's reward itself. Observations are the
# server's (at most 4096 bytes each): verl's
# multi_turn.max_tool_response_length does not cut them.
#
#   sqlgym export --tasks shop --band band.jsonl --agent --protocol tools --format verl --out agent.parquet
#   sqlgym serve --tasks shop --warm --max-turns 4 &
#   bash examples/verl/grpo_multi_turn.sh
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
SQLGYM_URL="${SQLGYM_URL:-http://127.0.0.1:8421}"
MODEL="${MODEL:-Qwen/Qwen3-4B}"

# The agent loop is imported by module name in verl's Ray workers.
python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files="${TRAIN:-agent.parquet}" \
  data.val_files="${VAL:-agent.parquet}" \
  data.train_batch_size=32 \
  data.max_prompt_length=4096 \
  data.max_response_length=4096 \
  data.return_raw_chat=true \
  actor_rollout_ref.model.path="$MODEL" \
  actor_rollout_ref.actor.optim.lr=1e-6 \
  actor_rollout_ref.actor.ppo_mini_batch_size=32 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=2 \
  actor_rollout_ref.actor.use_kl_loss=false \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.n=16 \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=4 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=4 \
  actor_rollout_ref.rollout.multi_turn.format=hermes \
  actor_rollout_ref.rollout.agent.agent_loop_config_path="$REPO/examples/verl/sqlgym_agent_loop.yaml" \
  actor_rollout_ref.rollout.agent.num_workers=8 \
  reward.custom_reward_function.path="$REPO/integrations/python/sqlgym_verl.py" \
  reward.custom_reward_function.name=compute_score \
  +ray_kwargs.ray_init.runtime_env.env_vars.PYTHONPATH="$REPO/integrations/python" \
  +ray_kwargs.ray_init.runtime_env.env_vars.SQLGYM_URL="$SQLGYM_URL" \
  trainer.n_gpus_per_node="${GPUS:-8}" \
  trainer.nnodes=1 \
  trainer.total_epochs=4 \
  trainer.test_freq=10 \
  trainer.logger='["console"]' \
  trainer.project_name=sqlgym \
  trainer.experiment_name=grpo-multi-turn \
  "$@"
