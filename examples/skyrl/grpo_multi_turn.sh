#!/usr/bin/env bash
# GRPO on sqlgym episodes (text protocol) with SkyRL skyrl-v0.3.0
# (NovaSky-AI/SkyRL, tag skyrl-v0.3.0; skyrl-gym 0.4.0). The environment is
# sqlgym_skyrl.SqlgymEnv, registered as "sqlgym" by main_sqlgym.py; rows
# name it in env_class. generator.max_turns must equal serve --max-turns.
# Replies SkyRL cuts at its length limit leave the loss
# (generator.apply_overlong_filtering); the server scores the rest.
#
#   sqlgym export --tasks shop --band band.jsonl --agent --protocol text --format skyrl --out agent.skyrl.jsonl
#   sqlgym serve --tasks shop --warm --max-turns 4 &
#   bash examples/skyrl/grpo_multi_turn.sh
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
export SQLGYM_URL="${SQLGYM_URL:-http://127.0.0.1:8421}"
export PYTHONPATH="$REPO/integrations/python${PYTHONPATH:+:$PYTHONPATH}"
DATA="${DATA:-agent.skyrl.jsonl}"
GPUS="${GPUS:-8}"

python3 "$REPO/examples/skyrl/main_sqlgym.py" \
  data.train_data="['$DATA']" \
  data.val_data="['${VAL:-$DATA}']" \
  trainer.algorithm.advantage_estimator=grpo \
  trainer.policy.model.path="${MODEL:-Qwen/Qwen2.5-Coder-7B-Instruct}" \
  trainer.placement.colocate_all=true \
  trainer.strategy=fsdp \
  trainer.placement.policy_num_gpus_per_node="$GPUS" \
  trainer.placement.ref_num_gpus_per_node="$GPUS" \
  generator.inference_engine.num_engines="$GPUS" \
  generator.inference_engine.tensor_parallel_size=1 \
  generator.inference_engine.backend=vllm \
  generator.inference_engine.run_engines_locally=true \
  trainer.epochs=4 \
  trainer.train_batch_size=32 \
  trainer.policy_mini_batch_size=32 \
  trainer.micro_forward_batch_size_per_gpu=4 \
  trainer.micro_train_batch_size_per_gpu=1 \
  trainer.max_prompt_length=6000 \
  generator.max_input_length=12000 \
  generator.sampling_params.max_generate_length=1024 \
  generator.sampling_params.stop='["</sql>", "</solution>"]' \
  generator.eval_sampling_params.stop='["</sql>", "</solution>"]' \
  generator.n_samples_per_prompt=16 \
  generator.max_turns=4 \
  generator.use_conversation_multi_turn=true \
  generator.batched=false \
  generator.apply_overlong_filtering=true \
  environment.env_class=sqlgym \
  trainer.eval_before_train=true \
  trainer.eval_interval=5 \
  trainer.logger=console \
  trainer.project_name=sqlgym \
  trainer.run_name=grpo-multi-turn \
  "$@"
