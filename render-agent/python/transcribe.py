"""faster-whisper runner for the render-agent: one audio file in, JSON lines out.

stdout carries ONLY JSON lines (one object per line; logs go to stderr):
  {"type":"info","language":"en","duration":12.34}
  {"type":"progress","fraction":0.42}            end of the last segment / duration
  {"type":"segment","id":0,"start":0.0,"end":2.5,"text":"...","words":[{"start","end","word","probability"}]}
  {"type":"done"}
  {"type":"error","code":"model_unavailable|audio_invalid|internal","message":"..."}  then exit 1
Times are seconds rounded to milliseconds. SIGTERM ends the process at once (exit 143)."""
import argparse
import json
import logging
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_paths import resolve_for_loading  # noqa: E402

log = logging.getLogger("transcribe")


class RunnerError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def emit(obj: dict) -> None:
    # Flushed per line: the agent turns each line into progress as it arrives.
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def ms(x: float) -> float:
    return round(float(x), 3)


def cuda_device_count() -> int:
    try:
        import ctranslate2

        return ctranslate2.get_cuda_device_count()
    except Exception:  # noqa: BLE001 - no CUDA runtime means no CUDA device
        return 0


def pick_device(device: str) -> str:
    if device == "auto":
        return "cuda" if cuda_device_count() > 0 else "cpu"
    return device


def pick_compute_type(compute_type: str, device: str) -> str:
    # int8 keeps CPU inference fast with little accuracy loss; float16 is the native GPU path.
    if compute_type in ("", "auto"):
        return "float16" if device == "cuda" else "int8"
    return compute_type


def load_audio(path: str):
    from faster_whisper import decode_audio

    # Messages reach the caller: they name the file, never its folder (the agent's work folder).
    name = os.path.basename(path)
    if not os.path.isfile(path):
        raise RunnerError("audio_invalid", f"audio file not found: {name}")
    try:
        return decode_audio(path, sampling_rate=16000)
    except Exception as e:  # noqa: BLE001 - PyAV raises many types for undecodable input
        detail = str(e).replace(os.path.abspath(path), name).replace(path, name)
        raise RunnerError("audio_invalid", f"could not decode audio {name}: {detail}") from e


def load_model(name: str, device: str, compute_type: str, cpu_threads: int = 0):
    from faster_whisper import WhisperModel

    target = resolve_for_loading(name)
    log.info("loading model %s from %s on %s (%s, cpu threads %s)", name, target, device, compute_type, cpu_threads or "default")
    try:
        return WhisperModel(target, device=device, compute_type=compute_type, cpu_threads=cpu_threads)
    except Exception as e:  # noqa: BLE001 - missing files, offline hub, CUDA init all land here
        raise RunnerError("model_unavailable", f"could not load Whisper model {name!r} on {device}: {e}") from e


# One step of 16-bit PCM (what the agent's extraction writes), as decode_audio scales it.
ONE_STEP = 1.0 / 32768


def is_digital_silence(audio) -> bool:
    """True when no sample is louder than one 16-bit step: Whisper's VAD finds no speech there."""
    import numpy as np

    return audio.size == 0 or float(np.max(np.abs(audio))) <= ONE_STEP


def silent_language(model, audio) -> str:
    # What transcribe() would report: English-only models say "en"; multilingual ones detect it.
    if not model.model.is_multilingual:
        return "en"
    language, _, _ = model.detect_language(audio[: 30 * 16000])
    return language


def run(args: argparse.Namespace) -> None:
    device = pick_device(args.device)
    compute_type = pick_compute_type(args.compute_type, device)
    audio = load_audio(args.audio)
    model = load_model(args.model, device, compute_type, args.cpu_threads)
    if is_digital_silence(audio):
        # Nothing for the VAD to find (it would take ~40 s of CPU over 4 h to say so): no segments.
        log.info("digital silence (peak at most one 16-bit step): no speech to look for")
        emit({"type": "info", "language": args.language or silent_language(model, audio), "duration": ms(len(audio) / 16000)})
        emit({"type": "progress", "fraction": 1.0})
        emit({"type": "done"})
        return
    segments, info = model.transcribe(
        audio,
        language=args.language or None,
        beam_size=args.beam_size,
        word_timestamps=True,
        vad_filter=True,
    )
    duration = float(info.duration)
    emit({"type": "info", "language": info.language, "duration": ms(duration)})
    # `segments` is a generator: decoding happens as we iterate, so progress is real.
    for index, seg in enumerate(segments):
        words = [
            {"start": ms(w.start), "end": ms(w.end), "word": w.word.strip(), "probability": round(float(w.probability), 4)}
            for w in (seg.words or [])
        ]
        emit({"type": "segment", "id": index, "start": ms(seg.start), "end": ms(seg.end), "text": seg.text.strip(), "words": words})
        if duration > 0:
            emit({"type": "progress", "fraction": round(min(1.0, max(0.0, seg.end / duration)), 4)})
    emit({"type": "progress", "fraction": 1.0})
    emit({"type": "done"})


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="faster-whisper runner (JSON lines on stdout)")
    p.add_argument("--audio", required=True, help="audio file (16 kHz mono WAV preferred)")
    p.add_argument("--model", default="tiny.en", help="model folder, or a name (tiny.en resolves to the bundled package)")
    p.add_argument("--device", choices=["cpu", "cuda", "auto"], default="auto")
    p.add_argument("--compute-type", default="auto", help="default: int8 on cpu, float16 on cuda")
    p.add_argument("--language", default=None, help="ISO 639-1 code to force; detect when omitted")
    p.add_argument("--beam-size", type=int, default=5)
    p.add_argument("--cpu-threads", type=int, default=0, help="CTranslate2 threads on the CPU; 0: its default (4)")
    return p.parse_args(argv)


def main() -> int:
    # Default disposition, not a Python handler: a handler only runs between bytecodes, and a
    # long CTranslate2 call would delay it; SIG_DFL ends the process immediately on cancel.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    args = parse_args()
    try:
        run(args)
        return 0
    except RunnerError as e:
        log.error("%s: %s", e.code, e)
        emit({"type": "error", "code": e.code, "message": str(e)})
    except BrokenPipeError:
        # The agent went away; nobody is listening for an error line.
        os._exit(1)
    except Exception as e:  # noqa: BLE001 - reported as a classified line, never a bare traceback
        log.exception("transcription failed")
        emit({"type": "error", "code": "internal", "message": f"{type(e).__name__}: {e}"})
    return 1


if __name__ == "__main__":
    sys.exit(main())
