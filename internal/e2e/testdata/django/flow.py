"""Django 3.2 (Debian's python3-django) over psycopg2 against the server of
the libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE): migrate with
contrib apps and the shop app's migrations, the schema introspection
Django's backend does, inspectdb, the ORM, transactions, server-side
cursors, migrating back and forth.

internal/e2e TestDjango runs it on PostgreSQL 15 and on pgproxy and
compares the transcripts; it prints OK at the end.
"""
import datetime
import decimal
import io
import os
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["DJANGO_SETTINGS_MODULE"] = "settings"

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import Group, Permission, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import (Avg, Count, Exists, F, Max, OuterRef, Prefetch, Q,  # noqa: E402
                              Subquery, Sum, Value)
from django.db.models.functions import Coalesce, Lower, Rank, Upper  # noqa: E402
from django.db.models import Window  # noqa: E402

from shop.models import Author, Book, Review, Tag  # noqa: E402

UTC = datetime.timezone.utc


def cmd(*args, **kw):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=out, no_color=True, **kw)
    return out.getvalue().rstrip()


def say(*a):
    print(*a)


def introspect(tables):
    intro = connection.introspection
    with connection.cursor() as cur:
        listed = sorted((t.name, t.type) for t in intro.get_table_list(cur) if t.name.startswith("shop_"))
        say("tables", listed)
        for t in tables:
            for c in intro.get_table_description(cur, t):
                say(" ", t, c.name, c.type_code, "null=%s" % c.null_ok, "default=%s" % c.default,
                    "size=%s" % (c.internal_size,), "prec=%s/%s" % (c.precision, c.scale))
            say("  sequences", intro.get_sequences(cur, t))
            say("  relations", sorted(intro.get_relations(cur, t).items()))
            say("  pk", intro.get_primary_key_column(cur, t))
            cons = intro.get_constraints(cur, t)
            for name in sorted(cons):
                c = cons[name]
                # Index names Django derived from a hash differ in nothing
                # but are printed whole so a drift shows.
                say("  constraint", name, {k: c[k] for k in sorted(c)})


def orm():
    ada = Author.objects.create(name="Ada", email="ada@example.com", born=datetime.date(1815, 12, 10),
                                profile={"city": "London", "langs": ["en", "fr"], "stars": 5})
    grace = Author.objects.create(name="Grace", profile={"city": "New York", "langs": ["en"]})
    alan = Author.objects.create(name="Alan", born=datetime.date(1912, 6, 23), profile={"city": "London"})
    fiction, science, history = (Tag.objects.get(name=n) for n in ("fiction", "science", "history"))
    b1 = Book.objects.create(author=ada, title="Notes on the Engine", price=decimal.Decimal("12.50"),
                             page_count=120, keywords=["math", "engine"], rating=5,
                             published=datetime.datetime(1843, 7, 1, 12, 0, tzinfo=UTC),
                             code=uuid.UUID("6ba7b810-9dad-11d1-80b4-00c04fd430c8"))
    b1.tags.add(science, history)
    b2 = Book.objects.create(author=grace, title="Compilers", price=decimal.Decimal("30"), page_count=300,
                             keywords=["cobol"], rating=4)
    b2.tags.add(science)
    Book.objects.bulk_create([
        Book(author=alan, title="Computable Numbers", price=decimal.Decimal("0.99"), page_count=36,
             keywords=["math", "logic"]),
        Book(author=alan, title="Morphogenesis", price=decimal.Decimal("7.25"), keywords=[]),
    ])
    Review.objects.bulk_create([Review(book=b1, stars=5, body="visionary"), Review(book=b1, stars=4),
                                Review(book=b2, stars=3, body="dense")])
    say("counts", Author.objects.count(), Book.objects.count(), Review.objects.count(), Tag.objects.count())

    say("ordered authors", list(Author.objects.values_list("name", flat=True)))
    say("londoners", list(Author.objects.filter(profile__city="London").values_list("name", flat=True)))
    say("has stars", list(Author.objects.filter(profile__has_key="stars").values_list("name", flat=True)))
    say("speaks fr", list(Author.objects.filter(profile__langs__contains=["fr"]).values_list("name", flat=True)))
    say("profile contains", list(Author.objects.filter(profile__contains={"city": "New York"}).values_list("name", flat=True)))
    say("math books", list(Book.objects.filter(keywords__contains=["math"]).order_by("title").values_list("title", flat=True)))
    say("overlap", list(Book.objects.filter(keywords__overlap=["cobol", "logic"]).order_by("title").values_list("title", flat=True)))
    say("no keywords", list(Book.objects.filter(keywords__len=0).values_list("title", flat=True)))
    say("first keyword", list(Book.objects.order_by("title").values_list("title", "keywords__0")))
    say("icontains", list(Book.objects.filter(title__icontains="NUMB").values_list("title", flat=True)))
    say("startswith/range", list(Book.objects.filter(Q(title__startswith="Co") | Q(price__range=(5, 10)))
                                  .order_by("-price").values_list("title", "price")))
    say("null rating", list(Book.objects.filter(rating__isnull=True).order_by("title").values_list("title", flat=True)))
    say("born year", list(Author.objects.filter(born__year__lt=1900).values_list("name", flat=True)))
    say("published", list(Book.objects.filter(published__isnull=False).values_list("published", flat=True)))
    say("by code", Book.objects.get(code="6ba7b810-9dad-11d1-80b4-00c04fd430c8").title)

    per_author = Author.objects.annotate(n=Count("books"), total=Coalesce(Sum("books__price"), Value(decimal.Decimal(0))),
                                         avg_pages=Avg("books__page_count")).order_by("-n", "name")
    for a in per_author:
        say("author", a.name, a.n, a.total, None if a.avg_pages is None else round(a.avg_pages, 2))
    say("aggregate", Book.objects.aggregate(total=Sum("price"), top=Max("page_count"), avg=Avg("rating")))
    say("tag counts", list(Tag.objects.annotate(n=Count("books")).order_by("name").values_list("name", "n")))
    ranked = Book.objects.annotate(r=Window(expression=Rank(), order_by=F("price").desc())).order_by("r")
    say("ranked", [(b.title, b.r) for b in ranked])
    best = Review.objects.filter(book=OuterRef("pk")).order_by("-stars").values("stars")[:1]
    say("best review", list(Book.objects.annotate(best=Subquery(best)).order_by("title").values_list("title", "best")))
    say("reviewed", list(Book.objects.filter(Exists(Review.objects.filter(book=OuterRef("pk")))).order_by("title")
                         .values_list("title", flat=True)))
    say("upper", list(Author.objects.annotate(u=Upper("name"), l=Lower("email")).values_list("u", "l")))
    say("nulls last", list(Book.objects.order_by(F("rating").desc(nulls_last=True), "title").values_list("title", "rating")))
    say("distinct cities", sorted(set(Author.objects.values_list("profile__city", flat=True).distinct())))

    with_related = Book.objects.select_related("author").order_by("title")
    say("select_related", [(b.title, b.author.name) for b in with_related])
    pre = Author.objects.prefetch_related(Prefetch("books", queryset=Book.objects.order_by("title")), "books__tags")
    for a in pre:
        say("prefetch", a.name, [(b.title, sorted(t.name for t in b.tags.all())) for b in a.books.all()])

    Book.objects.filter(author=alan).update(price=F("price") * 2, rating=Coalesce("rating", 1))
    say("doubled", list(Book.objects.filter(author=alan).order_by("title").values_list("title", "price", "rating")))
    books = list(Book.objects.order_by("title"))
    for b in books:
        b.page_count += 1
    Book.objects.bulk_update(books, ["page_count"])
    say("bulk_update", list(Book.objects.order_by("title").values_list("page_count", flat=True)))
    tag, created = Tag.objects.get_or_create(name="poetry")
    say("get_or_create", tag.name, created, Tag.objects.get_or_create(name="poetry")[1])
    a, created = Author.objects.update_or_create(name="Grace", defaults={"email": "grace@navy.mil"})
    say("update_or_create", a.email, created)
    ada.profile["langs"].append("it")
    ada.save(update_fields=["profile"])
    ada.refresh_from_db()
    say("json saved", ada.profile["langs"], type(ada.profile["stars"]).__name__)

    # Server-side cursor: iterator() DECLAREs a cursor and FETCHes in chunks.
    with transaction.atomic():
        say("iterator", [b.title for b in Book.objects.order_by("title").iterator(chunk_size=2)])
    say("iterator autocommit", [b.title for b in Book.objects.order_by("-title").iterator(chunk_size=3)])

    # Transactions and constraint errors.
    try:
        with transaction.atomic():
            Author.objects.create(name="Temp")
            Author.objects.create(name="Ada")
    except IntegrityError as e:
        say("unique violation", e.__cause__.pgcode)
    say("temp rolled back", Author.objects.filter(name="Temp").exists())
    with transaction.atomic():
        Tag.objects.create(name="outer")
        try:
            with transaction.atomic():
                Tag.objects.create(name="inner")
                Book.objects.create(author=ada, title="Negative", price=decimal.Decimal("-1"))
        except IntegrityError as e:
            say("check violation", e.__cause__.pgcode, e.__cause__.diag.constraint_name)
        with transaction.atomic():
            locked = Book.objects.select_for_update().get(title="Compilers")
            locked.rating = 5
            locked.save()
    say("savepoint kept outer", sorted(Tag.objects.filter(name__in=["outer", "inner"]).values_list("name", flat=True)))
    try:
        Book.objects.create(author_id=999999, title="Orphan", price=1)
    except IntegrityError as e:
        say("fk violation", e.__cause__.pgcode)
    try:
        with transaction.atomic():
            Book.objects.create(author=ada, title="Notes on the Engine", price=1)
    except IntegrityError as e:
        say("unique together", e.__cause__.pgcode, e.__cause__.diag.constraint_name)
    deleted = Author.objects.filter(name="Alan").delete()
    say("cascade delete", deleted)
    say("raw", [(r.name, r.n) for r in Author.objects.raw(
        "SELECT a.id, a.name, count(b.id) AS n FROM shop_author a LEFT JOIN shop_book b ON b.author_id = a.id "
        "GROUP BY a.id, a.name ORDER BY a.name")])

    # contrib.auth: users, groups, the permissions post_migrate created.
    u = User.objects.create_user("ada", "ada@example.com", "secret")
    g = Group.objects.create(name="editors")
    g.permissions.add(Permission.objects.get(codename="change_book"))
    u.groups.add(g)
    u = User.objects.get(pk=u.pk)
    say("perms", u.has_perm("shop.change_book"), u.has_perm("shop.delete_book"), u.check_password("secret"))
    say("permission count", Permission.objects.filter(content_type__app_label="shop").count())


def main():
    say("makemigrations --check:", cmd("makemigrations", "--check", "--dry-run"))
    say(cmd("migrate", "shop", "0002"))
    say(cmd("showmigrations"))
    say(cmd("migrate"))
    say(cmd("migrate", "shop", "0001"))
    say(cmd("migrate"))
    tables = ["shop_author", "shop_book", "shop_book_tags", "shop_review", "shop_tag"]
    introspect(tables)
    with connection.cursor() as cur:
        cur.execute("SELECT obj_description('shop_book'::regclass, 'pg_class')")
        say("comment", cur.fetchone()[0])
    say(cmd("inspectdb", *tables))
    orm()
    say(cmd("migrate", "shop", "zero"))
    with connection.cursor() as cur:
        say("left", sorted(connection.introspection.table_names(cur)))
    say(cmd("showmigrations", "shop"))
    print("OK")


main()
