#!/usr/bin/env bash
# GRPO with sqlgym rewards on OpenRLHF, single-turn.
#
# Pinned: OpenRLHF 0.11.0. The dotted flags below exist from 0.10.2 on
# (older releases take the underscore names and reject these).
#
# The reward is the server's /get_reward route: OpenRLHF posts one sample
# per request, {"query", "prompts", "labels"}, the query decoded with its
# special tokens; the server strips the end-of-turn token, finds the reply
# even when the prompt was cut from the left, and answers rewards (the
# sqlgym reward), scores (0/1 correctness, which dynamic filtering uses) and
# extra_logs. For the file route, which retries an outage for 5 minutes
# instead of OpenRLHF's 5 attempts, give
# --reward.remote_url integrations/python/sqlgym_reward.py instead.
#
# Truncated replies: OpenRLHF knows the finish reason, the remote protocol
# does not carry it; --reward.stop_properly_penalty_coef 0.0 sets their
# reward to 0 (a negative value sets it to that value).
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-Coder-1.5B-Instruct}"

# The datasets: "prompt" (chat messages) and "label" (the task id; on the
# held-out rows {"task_id", "mode": "eval"}, so they are scored as
# validation).
sqlgym export --tasks band.jsonl --format trl --out band.trl.jsonl
sqlgym export --tasks shop --split holdout --format trl --out holdout.trl.jsonl

# The reward server; --eval-holdout scores the held-out rows on evaluation
# requests only.
sqlgym serve --tasks shop --warm --eval-holdout --addr 0.0.0.0:8421 &
SERVE=$!
trap 'kill $SERVE' EXIT
REWARD_URL="http://$(hostname -I | awk '{print $1}'):8421/get_reward"

ray job submit --address="http://127.0.0.1:8265" \
  --runtime-env-json="{\"working_dir\": \"$PWD\"}" \
  -- python3 -m openrlhf.cli.train_ppo_ray \
  --ref.num_nodes 1 \
  --ref.num_gpus_per_node 8 \
  --actor.num_nodes 1 \
  --actor.num_gpus_per_node 8 \
  --vllm.num_engines 4 \
  --vllm.tensor_parallel_size 2 \
  --vllm.gpu_memory_utilization 0.6 \
  --vllm.enable_sleep \
  --ds.enable_sleep \
  --train.colocate_all \
  --actor.model_name_or_path "$MODEL" \
  --reward.remote_url "$REWARD_URL" \
  --data.prompt_dataset band.trl.jsonl \
  --data.input_key prompt \
  --data.label_key label \
  --data.apply_chat_template \
  --eval.dataset holdout.trl.jsonl \
  --eval.steps 20 \
  --eval.n_samples_per_prompt 4 \
  --algo.advantage.estimator group_norm \
  --algo.kl.use_loss \
  --algo.kl.init_coef 0.001 \
  --algo.dynamic_filtering_enable \
  --algo.dynamic_filtering_range 0.0 1.0 \
  --reward.stop_properly_penalty_coef 0.0 \
  --rollout.n_samples_per_prompt 16 \
  --rollout.batch_size 32 \
  --train.batch_size 512 \
  --rollout.max_new_tokens 1024 \
  --data.max_len 5120 \
  --train.micro_batch_size 4 \
  --rollout.micro_batch_size 8 \
  --actor.adam.lr 1e-6 \
  --ds.zero_stage 3 \
  --ds.param_dtype bf16 \
  --actor.gradient_checkpointing_enable \
  --ckpt.output_dir ./ckpt/grpo-sqlgym
