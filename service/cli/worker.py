"""``crashdoc worker``: runs the jobs (service/jobs) apart from the serving processes."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("worker", help="run background jobs (Slack replies, async diagnoses, alerts) for the service")
    p.add_argument("--concurrency", type=int, default=None, help="jobs at once (default: CRASHDOC_JOBS_WORKERS, 2)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import logging

    from service.jobs import InProcess, is_postgres
    from service.jobs.queue import QUEUE_NAME, procrastinate_app
    from service.pipeline import Engine
    from service.settings import get_settings

    settings = get_settings()
    logging.basicConfig(level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    engine = Engine(settings)
    engine.warm()
    _ = engine.store  # migrated before the first job
    concurrency = args.concurrency or settings.jobs_workers
    url = settings.resolved_database_url
    logging.getLogger("crashdoc.jobs").info("worker ready (%s, %d at once)",
                                            "procrastinate" if is_postgres(url) else "in-process", concurrency)
    try:
        if is_postgres(url):
            procrastinate_app(url, engine).run_worker(queues=[QUEUE_NAME], concurrency=concurrency,
                                                      install_signal_handlers=True)
        else:
            InProcess(engine, workers=concurrency).run_forever()
    except KeyboardInterrupt:
        pass
    return 0
