#!/usr/bin/env bash
# GRPO on multi-turn sqlgym episodes on OpenRLHF (--train.agent_func_path).
#
# Pinned: OpenRLHF 0.11.0 (the agent interface and these dotted flags exist
# from 0.10.2 on).
#
# integrations/python/sqlgym_openrlhf_agent.py's AgentExecutor plays one
# episode per sample over the text protocol (<sql> runs a query,
# <solution> submits): its prompt is the episode's opening messages in the
# model's chat format (SQLGYM_CHAT_FORMAT: chatml, llama3 or gemma), each
# observation a user turn, and the last step's rewards/scores the episode's
# reward and 0/1 correctness. With an agent, OpenRLHF takes the reward from
# the agent, so --reward.remote_url is not given. A database outage raises
# in the agent (never a 0).
set -euo pipefail

MODEL="${MODEL:-Qwen/Qwen2.5-Coder-7B-Instruct}"
export SQLGYM_CHAT_FORMAT=chatml

# Only "label" is read from the rows (the agent renders the prompt itself).
sqlgym export --tasks band.jsonl --format trl --out band.trl.jsonl
sqlgym export --tasks shop --split holdout --format trl --out holdout.trl.jsonl

sqlgym serve --tasks shop --warm --eval-holdout --max-turns 4 --addr 0.0.0.0:8421 &
SERVE=$!
trap 'kill $SERVE' EXIT
export SQLGYM_URL="http://$(hostname -I | awk '{print $1}'):8421"

ray job submit --address="http://127.0.0.1:8265" \
  --runtime-env-json="{\"working_dir\": \"$PWD\", \"env_vars\": {\"SQLGYM_URL\": \"$SQLGYM_URL\", \"SQLGYM_CHAT_FORMAT\": \"$SQLGYM_CHAT_FORMAT\"}}" \
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
  --train.agent_func_path integrations/python/sqlgym_openrlhf_agent.py \
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
  --rollout.n_samples_per_prompt 8 \
  --rollout.batch_size 32 \
  --train.batch_size 256 \
  --rollout.max_new_tokens 1024 \
  --data.max_len 8192 \
  --train.micro_batch_size 2 \
  --rollout.micro_batch_size 4 \
  --actor.adam.lr 1e-6 \
  --ds.zero_stage 3 \
  --ds.param_dtype bf16 \
  --actor.gradient_checkpointing_enable \
  --ckpt.output_dir ./ckpt/grpo-sqlgym-agent
