"""The shop app's models: what its migrations (shop/migrations) build.
flow.py's makemigrations --check fails when the two drift apart."""
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q


class Author(models.Model):
    name = models.CharField(max_length=80, unique=True)
    email = models.EmailField(blank=True, default="")
    born = models.DateField(null=True)
    profile = models.JSONField(default=dict)

    class Meta:
        ordering = ["name"]


class Tag(models.Model):
    name = models.SlugField(unique=True)


class Book(models.Model):
    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
    title = models.CharField(max_length=250)
    price = models.DecimalField(max_digits=8, decimal_places=2)
    page_count = models.PositiveIntegerField(default=0)
    published = models.DateTimeField(null=True)
    tags = models.ManyToManyField(Tag, related_name="books")
    keywords = ArrayField(models.CharField(max_length=20), default=list)
    rating = models.SmallIntegerField(null=True)
    code = models.UUIDField(null=True, unique=True)

    class Meta:
        indexes = [models.Index(fields=["title"], name="book_title_idx")]
        constraints = [
            models.CheckConstraint(check=Q(price__gte=0), name="price_nonneg"),
            models.UniqueConstraint(fields=["author", "title"], name="uniq_author_title"),
        ]


class Review(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="reviews")
    stars = models.SmallIntegerField()
    body = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
