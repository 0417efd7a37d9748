"""The baseline for `npm run bench`: the same faster-whisper model on the same file, called
directly (no service, no queue, no ffmpeg step). Prints the wall time in seconds as JSON.
Arguments: audio, render-agent/python, model, CPU threads (0: CTranslate2's default)."""
import json, sys, time
sys.path.insert(0, sys.argv[2])  # render-agent/python, for the shared model resolution
from model_paths import resolve_for_loading  # noqa: E402
from faster_whisper import WhisperModel  # noqa: E402

t0 = time.perf_counter()
threads = int(sys.argv[4]) if len(sys.argv) > 4 else 0
model = WhisperModel(resolve_for_loading(sys.argv[3]), device="cpu", compute_type="int8", cpu_threads=threads)
segments, info = model.transcribe(sys.argv[1], word_timestamps=True, vad_filter=True)
words = sum(len(s.words or []) for s in segments)
print(json.dumps({"seconds": time.perf_counter() - t0, "words": words, "duration": info.duration}))
