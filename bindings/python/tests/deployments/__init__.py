"""The small apps of test_deployments.py (B39): one shop served the ways merchants deploy
Python (gunicorn, uvicorn, Celery, process pools), each with its client made before the fork.

`shop` holds what every app shares (the client's settings, the answers as JSON), `orders` the
merchant's order book the webhook handlers consult, `servers` how the tests start and watch
the servers; each framework has its own module.
"""
