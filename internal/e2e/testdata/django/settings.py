"""Django settings for flow.py: the database is the server of the libpq
environment (PGHOST, PGPORT, PGUSER, PGDATABASE)."""
import os

SECRET_KEY = "e2e-only"
USE_TZ = True
TIME_ZONE = "UTC"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.postgres", "shop"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": os.environ["PGDATABASE"],
        "USER": os.environ["PGUSER"],
        "PASSWORD": os.environ.get("PGPASSWORD", ""),
        "HOST": os.environ["PGHOST"],
        "PORT": os.environ["PGPORT"],
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Fast hashing: the flow creates users, it does not test PBKDF2.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
