# Self-hosting image: `docker build -t attention-lab .` then `docker run -p 8501:8501 attention-lab`.
FROM python:3.12-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PORT=8501 \
    CLASSROOM_DATA_DIR=/app/data

RUN useradd --create-home --uid 10001 app
WORKDIR /app
# The class mode's SQLite file (when CLASSROOM_DB_URL names no PostgreSQL): a folder the app's
# user writes; mount a volume here to keep a class across containers.
RUN mkdir -p /app/data && chown app:app /app/data

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY --chown=app:app streamlit_app.py dashboard.py ./
COPY --chown=app:app .streamlit ./.streamlit
COPY --chown=app:app viz_core ./viz_core
COPY --chown=app:app ui ./ui
COPY --chown=app:app classroom ./classroom
COPY --chown=app:app lessons ./lessons

USER app
EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:' + os.environ.get('PORT', '8501') + '/_stcore/health', timeout=4)"

CMD streamlit run streamlit_app.py --server.port=$PORT --server.address=0.0.0.0 --server.headless=true --browser.gatherUsageStats=false
